"""Prior-auth templates decided on a payer's clinical criteria read from the chart: genetic
testing, a home sleep test first, the site of care, conservative care before surgery, and
therapy visits past a plan's limit."""
