"""What every chart tab shares: the patient banner, the tab strip and the audit entry."""
from __future__ import annotations

from flask import g, render_template
from sqlalchemy import func, select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import db
from admindesk.envs.ehr_web.models import Coverage, Patient, Provider
from admindesk.envs.ehr_web.models_work import WorkItem
from admindesk.envs.ehr_web.views.alerts import chart_interruptions
from admindesk.envs.ehr_web.views.common import open_in_any_queue

# (tab key, label, endpoint) in display order.
CHART_TABS = (
    ("summary", "Summary", "chart.summary"),
    ("coverage", "Coverage", "chart.coverage"),
    ("problems", "Problems", "chart.problems"),
    ("medications", "Medications", "chart.medications"),
    ("orders", "Orders", "orders.orders_tab"),
    ("encounters", "Encounters & Notes", "chart.encounters"),
    ("results", "Results", "chart_more.results"),
    ("documents", "Documents", "documents.documents_tab"),
    ("media", "Media", "chart_more.media"),
    ("letters", "Letters", "chart_more.letters"),
    ("billing", "Billing", "billing.billing_tab"),
    ("notes", "Staff Notes", "chart.notes"),
)


def active_coverages(patient: Patient) -> list[Coverage]:
    """Coverages in force today, primary first."""
    today = clock.today()
    return [c for c in patient.coverages if c.active_on(today)]


def banner(patient: Patient) -> dict:
    """The facts of the patient header: payer in force, PCP and flags."""
    active = active_coverages(patient)
    flags = []
    if patient.language != "English":
        flags.append(("Interpreter: " + patient.language, ""))
    if not active:
        flags.append(("No active coverage", "flag-red"))
    elif active[0].rank != 1:
        flags.append(("Primary coverage terminated", "flag-red"))
    if len(active) > 1:
        flags.append(("Secondary insurance", ""))
    open_items = db().scalar(select(func.count()).select_from(WorkItem).where(
        WorkItem.mrn == patient.mrn, open_in_any_queue()))
    if open_items:
        flags.append((f"Open work items: {open_items}", ""))
    return {"coverage": active[0] if active else None, "flags": flags,
            "pcp": db().get(Provider, patient.pcp_npi) if patient.pcp_npi else None}


def render_chart(patient: Patient, tab: str, template: str, status: int = 200, **context):
    """Render one chart tab and record which patient and tab were viewed."""
    # Pages about a record inside the chart (an order, a claim) describe that record
    # themselves; the tab still says where in the chart it was seen.
    audit = g.get("audit", {})
    if "record_type" in audit:
        describe(tab=audit.get("tab", tab), mrn=patient.mrn)
    else:
        describe(record_type="patient", record_id=patient.mrn, tab=tab)
    return render_template(template, patient=patient, tab=tab, tabs=CHART_TABS, banner=banner(patient),
                           interruptions=chart_interruptions(patient), **context), status
