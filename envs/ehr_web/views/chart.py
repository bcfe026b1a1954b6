"""Chart tabs: Summary, Coverage, Problems, Medications, Encounters & Notes, Staff Notes.

Orders, Documents and Billing have their own modules; every tab has its own URL
and is audited with `tab=`.
"""
from __future__ import annotations

from flask import Blueprint, flash, redirect, url_for
from sqlalchemy import select

from admindesk.envs.common.web import db
from admindesk.envs.ehr_web.forms import NoteForm
from admindesk.envs.ehr_web.models import Document, Encounter, Medication, Order, Problem
from admindesk.envs.ehr_web.models_work import Note, WorkItem
from admindesk.envs.ehr_web.notes import add_note
from admindesk.envs.ehr_web.views.chart_base import active_coverages, render_chart
from admindesk.envs.ehr_web.views.common import patient_or_404
from admindesk.envs.ehr_web.views.coverage import render_coverage
from admindesk.envs.ehr_web.vocab import OPEN_ORDER_STATUSES

chart = Blueprint("chart", __name__, url_prefix="/patients/<mrn>")
SUMMARY_ROWS = 6


def _problems(mrn: str) -> list[Problem]:
    return list(db().scalars(select(Problem).where(Problem.mrn == mrn)
                             .order_by(Problem.status, Problem.last_addressed.desc(), Problem.id)))


def _medications(mrn: str) -> list[Medication]:
    return list(db().scalars(select(Medication).where(Medication.mrn == mrn)
                             .order_by(Medication.status, Medication.name, Medication.id)))


@chart.get("/summary")
def summary(mrn: str):
    """Snapshot of the chart: coverage, problems, medications, open orders, recent visits."""
    patient = patient_or_404(mrn)
    session = db()
    open_orders = list(session.scalars(select(Order).where(Order.mrn == mrn, Order.status.in_(OPEN_ORDER_STATUSES))
                                       .order_by(Order.planned_date, Order.id)))
    encounters = list(session.scalars(select(Encounter).where(Encounter.mrn == mrn)
                                      .order_by(Encounter.encounter_date.desc(), Encounter.id.desc())
                                      .limit(SUMMARY_ROWS)))
    documents = list(session.scalars(select(Document).where(Document.mrn == mrn)
                                     .order_by(Document.document_date.desc(), Document.id.desc()).limit(SUMMARY_ROWS)))
    items = list(session.scalars(select(WorkItem).where(WorkItem.mrn == mrn).order_by(WorkItem.due_date, WorkItem.id)))
    return render_chart(patient, "summary", "chart_summary.html", coverages=active_coverages(patient),
                        problems=[p for p in _problems(mrn) if p.status == "Active"],
                        medications=[m for m in _medications(mrn) if m.status in ("Active", "Pending")],
                        open_orders=open_orders, encounters=encounters, documents=documents, items=items)


@chart.get("/coverage")
def coverage(mrn: str):
    """Every coverage on file: active/inactive as of today, verification, order of benefits, history."""
    return render_coverage(patient_or_404(mrn))


@chart.get("/problems")
def problems(mrn: str):
    patient = patient_or_404(mrn)
    return render_chart(patient, "problems", "chart_problems.html", problems=_problems(mrn))


@chart.get("/medications")
def medications(mrn: str):
    patient = patient_or_404(mrn)
    return render_chart(patient, "medications", "chart_medications.html", medications=_medications(mrn))


@chart.get("/encounters")
def encounters(mrn: str):
    """Visits, newest first, each with the notes and reports written for it."""
    patient = patient_or_404(mrn)
    session = db()
    visits = list(session.scalars(select(Encounter).where(Encounter.mrn == mrn)
                                  .order_by(Encounter.encounter_date.desc(), Encounter.id.desc())))
    docs: dict[str, list[Document]] = {}
    for doc in session.scalars(select(Document).where(Document.mrn == mrn, Document.encounter_id.is_not(None))
                               .order_by(Document.document_date, Document.id)):
        docs.setdefault(doc.encounter_id, []).append(doc)
    return render_chart(patient, "encounters", "chart_encounters.html", encounters=visits, docs=docs)


def _render_notes(patient, form: NoteForm, status: int = 200):
    notes = list(db().scalars(select(Note).where(Note.mrn == patient.mrn)
                              .order_by(Note.created_at.desc(), Note.id.desc())))
    return render_chart(patient, "notes", "chart_notes.html", status=status, notes=notes, form=form)


@chart.get("/notes")
def notes(mrn: str):
    """Staff notes on the patient and on its orders, claims and work items."""
    return _render_notes(patient_or_404(mrn), NoteForm())


@chart.post("/notes")
def add_patient_note(mrn: str):
    patient = patient_or_404(mrn)
    form = NoteForm()
    if add_note(form, patient.mrn, "patient", patient.mrn) is None:
        return _render_notes(patient, form, status=422)
    flash("Note added to the patient.", "success")
    return redirect(url_for("chart.notes", mrn=patient.mrn))
