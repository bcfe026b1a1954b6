"""Keystone Mutual's germline genetic testing policy for hereditary cancer (KM-LAB-701).

A test the policy names (BRCA1/BRCA2 analysis, Lynch syndrome genes, hereditary cancer
panels) is medically necessary when the request states, as the member's records document:
pre-test genetic counseling by a genetics professional, ONE of the personal or family history
criteria below, that the result will change the member's management, and no earlier germline
test of the same genes. The policy's `clinical_rules` (data/policies.yaml) read these answers;
this module holds the criteria's wording, which the request form offers as its choices.
"""
from __future__ import annotations

HEREDITARY_CRITERIA = (
    "Personal history of breast cancer diagnosed at age 50 or younger",
    "Personal history of ovarian, fallopian tube or primary peritoneal cancer",
    "Personal history of colorectal or endometrial cancer diagnosed before age 50",
    "Close blood relative with a known pathogenic variant in a cancer susceptibility gene",
    "First- or second-degree relative with ovarian, pancreatic or male breast cancer, or breast cancer "
    "diagnosed at age 50 or younger",
    "Family history meeting the Amsterdam II criteria for Lynch syndrome",
)
NO_CRITERION = "None documented"
