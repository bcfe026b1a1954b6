"""Keystone Mutual's inpatient utilization management: admission notifications and concurrent
reviews (tables `inpatient_cases`, `inpatient_reviews`), their forms and the service that applies
the rules (rules/inpatient_rules.py); the screens are views/inpatient.py."""
