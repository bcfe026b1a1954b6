"""The EHR's fixed vocabularies: statuses, queues, document types."""
from __future__ import annotations

from dataclasses import dataclass

from admindesk.envs.world.org import NO_RESPONSE_DAYS

AUTH_STATUSES = ("Not Started", "Submitted - Pending", "Approved", "Denied", "No Auth Required",
                 "Pended - Info Requested", "Cancelled", "Withdrawn")
# Requests still under the payer's review: they can be withdrawn (or cancelled).
PENDING_AUTH_STATUSES = ("Submitted - Pending", "Pended - Info Requested")
# Statuses reached only through the authorization-change actions, which check the rules.
CHANGE_ONLY_AUTH_STATUSES = ("Cancelled", "Withdrawn")
# Events of an order's authorization history: the main form writes Initial/Update/Denial,
# the change actions the others.
AUTH_CHANGES = ("Extension", "Units increase", "Date change", "Cancellation", "Withdrawal")
AUTH_EVENTS = ("Initial", "Update", "Denial", *AUTH_CHANGES)

# Results of an eligibility check -> the coverage's verification status.
VERIFICATION_RESULTS = {"Active": "Verified - Active", "Inactive": "Verified - Inactive",
                        "Unable to verify": "Unable to Verify"}
NOT_VERIFIED = "Not Verified"


@dataclass(frozen=True)
class Queue:
    """A work queue: its URL slug, stored name, statuses and who usually works it."""

    slug: str
    name: str
    statuses: tuple[str, ...]
    closed_statuses: tuple[str, ...]
    default_role: str


QUEUES = {
    queue.slug: queue for queue in (
        Queue("prior-auth", "Prior Auth",
              ("New", "In Progress", "Auth Obtained", "No Auth Required", "Submitted - Pending",
               "Pended - Info Requested", "Denied", "Peer-to-Peer Requested", "Appeal Filed"),
              ("Auth Obtained", "No Auth Required", "Denied"), "Prior Authorization Coordinator"),
        Queue("denials", "Denials",
              ("New", "In Progress", "Appeal Filed", "Corrected Claim Sent", "Billed to Other Payer", "Claim Resubmitted",
               "Route to Clinical Appeals", "Write-off Requested", "Patient Responsibility", "Resolved"),
              # Patient Responsibility: the balance moves to the patient's account (the payer's denial
              # stands and the plan makes the member liable, e.g. a benefit maximum reached).
              ("Resolved", "Write-off Requested", "Patient Responsibility"), "Denials & Appeals Specialist"),
        Queue("dme", "DME",
              ("New", "In Progress", "Sent to Supplier", "Supplier Confirmed", "On Hold"),
              ("Supplier Confirmed",), "DME Coordinator"),
    )
}
QUEUE_BY_NAME = {queue.name: queue for queue in QUEUES.values()}
# Teams' pools a work item can be assigned to (the assignee picker lists them after the staff): an
# item that another team owns is handed to its pool, and whoever of that team is free picks it up.
# Keys cannot be a username (usernames have no colon).
WORK_POOLS = {
    "pool:wc_liability": "WC/Liability Billing",
    "pool:clinical_appeals": "Clinical Appeals",
    "pool:patient_access": "Patient Access / Registration",
    "pool:cob": "Coordination of Benefits",
    "pool:coding": "Coding & HIM",
    "pool:payment_posting": "Payment Posting",
    "pool:credentialing": "Provider Enrollment / Credentialing",
}

# Orders not yet performed or cancelled: the chart's "open orders", the PA and DME queues' source.
OPEN_ORDER_STATUSES = ("Ordered", "Scheduled")
# A Denials item's review reason when it holds a paid claim: payment posting flagged the payment,
# or the payer's overpayment notice says it will take the payment back.
LOW_PAYMENT = "Low payment"
OVERPAYMENT_RECOVERY = "Overpayment recovery"
NO_RESPONSE = f"No payer response {NO_RESPONSE_DAYS}+ days"
REVIEW_REASONS = {
    NO_RESPONSE: "no remittance or rejection has reached the office since the claim was billed; check its status "
                 "with the payer",
    LOW_PAYMENT: "flagged at payment posting for a check against the payer's contract",
    OVERPAYMENT_RECOVERY: "the payer's overpayment notice says it will take this claim's payment back "
                          "(the notice is in the payer's correspondence)",
}
# Denial codes that say the payer did not cover the patient on the date of service: only
# these claims' balances may be transferred to the patient (balance_transfers.py).
ELIGIBILITY_CARCS = frozenset({"26", "27"})

# Adjustments that are contractual or patient share, not denials.
NON_DENIAL_CARCS = frozenset({"45", "1", "2", "3"})

# World document kinds -> the type shown in the chart (and used in download file names).
DOCUMENT_KINDS = {
    "progress_note": "Progress Note", "imaging_report": "Imaging Report",
    "face_to_face": "Face-to-Face Evaluation", "written_order": "Written Order",
    "lab_result": "Lab Result", "pt_note": "PT Note", "medication_history": "Medication History",
    "sleep_study": "Sleep Study", "adherence_report": "PAP Adherence Report",
    "oximetry_report": "Oximetry Report", "incident_report": "Incident Report",
    "clearinghouse_report": "Clearinghouse Report", "injury_report": "Injury Report",
    "financial_form": "Financial Form",
    "insurance_card": "Insurance Card",
}
# Types a user may pick when uploading a PDF into the chart.
UPLOAD_KINDS = ("Payer Letter", "Authorization Approval", "Denial Letter", "Outside Records",
                "Correspondence", "Appeal Letter", "Other")

NOTE_MAX_LENGTH = 4000
