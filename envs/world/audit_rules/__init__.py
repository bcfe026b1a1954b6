"""The world audit's rule groups beside the payers' and coding rules (envs/world/audit.py runs
them): inpatient stays and their notifications, injuries and registration's accident records,
clinicians' payer enrollments, drug lines denied for their NDC, tests denied for their diagnosis."""
