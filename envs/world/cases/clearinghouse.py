"""A claim's clearinghouse history: each transmission's batch, the payer's answer and the
acknowledgement report the clearinghouse sent back (a chart document of the billing office).

A clearinghouse first acknowledges the file it received (X12 999: accepted when the batch
passed its format edits), then forwards each claim to the payer, whose front end answers
with a claim acknowledgement (277CA): accepted, with the payer's claim control number, or
rejected (status category A3/A7 and a code), in which case the payer never received the
claim. Only the payer's acceptance proves the claim was filed on that date.
"""
from __future__ import annotations

import random

from admindesk.envs.world.documents import us_date
from admindesk.envs.world.models import ClaimLine, ClaimSubmission, Patient, Payer
from admindesk.schema.case_model import ClaimSubmissionSpec

CLEARINGHOUSE = "Central PA Claims Exchange"
SUBMITTER = "Susquehanna Valley Health Business Office"


def submission(task_id: str, spec: ClaimSubmissionSpec, payer: Payer, report_id: str) -> ClaimSubmission:
    """The transmission as records: its batch id and, once accepted, the payer's control number
    (both drawn from the report's own seed, so the claim and its report agree)."""
    rng = random.Random(f"case:{task_id}:{spec.report}")
    day = spec.transmitted_on
    batch = f"CX-{day:%Y%m%d}-{rng.randrange(1000, 9999):04d}"
    control = None if spec.rejection else f"{payer.payer_code}{day:%y%j}{rng.randrange(100000, 999999)}"
    return ClaimSubmission(transmitted_on=day, batch_id=batch, payer_control_number=control,
                           rejection=spec.rejection, report_document_id=report_id, note=spec.note)


def report_text(sent: ClaimSubmission, claim_number: str, patient: Patient, member_id: str, payer: Payer,
                billing_npi: str, service_date, lines: tuple[ClaimLine, ...]) -> str:
    """The acknowledgement report as the clearinghouse prints it: the batch, both acknowledgements
    and the claim they are about."""
    day = us_date(sent.transmitted_on)
    if sent.rejection:
        payer_ack = (f"REJECTED by payer front end - {sent.rejection}. The claim was not accepted for "
                     "adjudication and has no payer claim control number. Correct and resubmit.")
    else:
        payer_ack = (f"ACCEPTED by payer front end - A1:20 accepted for processing. Payer claim control number "
                     f"{sent.payer_control_number}.")
    total = sum(line.charge for line in lines)
    services = "; ".join(f"line {line.line_no} {line.code} x{line.units} ${line.charge:,.2f}" for line in lines)
    return "\n\n".join((
        f"{CLEARINGHOUSE.upper()}\nCLAIM ACKNOWLEDGMENT REPORT (999 / 277CA)",
        f"Batch: {sent.batch_id}    Transmitted: {day}    Submitter: {SUBMITTER}, billing NPI {billing_npi}",
        f"Payer: {payer.name} (payer ID {payer.payer_code})",
        f"File acknowledgment (999), {day}: ACCEPTED - batch {sent.batch_id} passed the clearinghouse format edits "
        "and was forwarded to the payer.",
        f"Payer claim acknowledgment (277CA), {day}: {payer_ack}",
        f"Claim: patient control number {claim_number}    Patient: {patient.last_name}, {patient.first_name}    "
        f"DOB: {us_date(patient.dob)}    Member ID: {member_id}",
        f"Date of service: {us_date(service_date)}    Total charge: ${total:,.2f}    Services: {services}",
        f"Report produced by {CLEARINGHOUSE} for the submitter. Keep it with the claim's history.",
    ))
