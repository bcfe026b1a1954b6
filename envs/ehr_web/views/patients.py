"""Patient search by name, MRN or date of birth, with sortable, paginated results."""
from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for
from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import selectinload

from admindesk.envs.common.audit import describe
from admindesk.envs.common.pagination import apply_sort, paginate
from admindesk.envs.common.web import db
from admindesk.envs.ehr_web.forms import PatientSearchForm
from admindesk.envs.ehr_web.models import Coverage, Patient
from admindesk.envs.ehr_web.views.chart_base import active_coverages
from admindesk.envs.ehr_web.views.common import patient_or_404

patients = Blueprint("patients", __name__)
PER_PAGE = 25
SORT_COLUMNS = {"name": Patient.last_name, "mrn": Patient.mrn, "dob": Patient.dob, "city": Patient.city}


def name_filter(text: str):
    """'Last, First' matches by prefixes; other words must each start a first or last name."""
    if "," in text:
        last, first = (part.strip().lower() for part in text.split(",", 1))
        return and_(func.lower(Patient.last_name).startswith(last, autoescape=True),
                    func.lower(Patient.first_name).startswith(first, autoescape=True))
    return and_(*(or_(func.lower(Patient.last_name).startswith(word, autoescape=True),
                      func.lower(Patient.first_name).startswith(word, autoescape=True))
                  for word in text.lower().split()))


def mrn_filter(text: str):
    """MRNs that start with the typed one; the leading E may be left out."""
    mrn = text.strip().upper()
    return Patient.mrn.startswith(mrn if mrn.startswith("E") else "E" + mrn)


def patient_filter(kind: str, value):
    """The patients a lookup (forms.patient_lookup) asks for: by date of birth, MRN or name."""
    if kind == "dob":
        return Patient.dob == value
    return mrn_filter(value) if kind == "mrn" else name_filter(value)


@patients.get("/patients")
def search():
    """The search form; results once criteria are given."""
    form = PatientSearchForm(request.args)
    searched = "search" in request.args
    page, message = None, None
    if searched:
        valid = form.validate()
        if valid and not form.has_criteria():
            message = "Enter a name, MRN or date of birth to search."
        elif valid:
            # Each row shows the payer in force: load coverages with the page, not per row.
            stmt = select(Patient).options(selectinload(Patient.coverages).selectinload(Coverage.payer))
            if form.name.data and form.name.data.strip():
                stmt = stmt.where(name_filter(form.name.data.strip()))
            if form.mrn.data and form.mrn.data.strip():
                stmt = stmt.where(mrn_filter(form.mrn.data))
            if form.dob.data:
                stmt = stmt.where(Patient.dob == form.dob.data)
            stmt = apply_sort(stmt, SORT_COLUMNS, "name").order_by(Patient.last_name, Patient.first_name,
                                                                  Patient.mrn)
            page = paginate(db(), stmt, per_page=PER_PAGE)
    describe(action="search_patients" if searched else "view", record_type="patient_search",
             **({"criteria": {k: v for k, v in request.args.items() if k in ("name", "mrn", "dob") and v}}
                if searched else {}))
    status = 422 if searched and (form.errors or message) else 200
    payers = {}
    for patient in page.items if page else ():
        active = active_coverages(patient)
        payers[patient.mrn] = active[0].payer.name if active else "No active coverage"
    return render_template("patient_search.html", form=form, page=page, message=message, payers=payers), status


@patients.get("/patients/<mrn>")
def open_chart(mrn: str):
    """A chart opens on its Summary tab."""
    patient = patient_or_404(mrn)
    describe(record_type="patient", record_id=patient.mrn, action="open_chart")
    return redirect(url_for("chart.summary", mrn=patient.mrn))
