"""The EHR's blueprints, one per area of the product."""
from __future__ import annotations

from .alerts import alerts, refuse_edits_to_a_locked_chart
from .billing import billing
from .chart import chart
from .chart_more import chart_more
from .coverage import coverage
from .documents import documents
from .home import home
from .inbasket import inbasket
from .orders import orders
from .patients import patients
from .queue_desk import queue_desk
from .queues import queues

BLUEPRINTS = (alerts, home, inbasket, patients, chart, chart_more, coverage, orders, documents, billing, queues, queue_desk)
# The chart's own blueprints: their edits are refused while another user holds the chart.
for _chart_blueprint in (chart, coverage, orders, documents, billing):
    _chart_blueprint.before_request(refuse_edits_to_a_locked_chart)
