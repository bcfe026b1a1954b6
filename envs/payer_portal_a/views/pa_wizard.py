"""The prior-auth submission wizard. The draft lives in `pa_requests` (status "Draft")
from the first step on, so Back/Next, reloads and coming back later keep everything."""
from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from sqlalchemy import select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.documents.stored_files import stored_file_values
from admindesk.envs.common.documents.uploads import UploadError, read_pdf_upload
from admindesk.envs.common.web import current_username, db, get_or_404
from admindesk.envs.payer_portal_a.forms import (
    AttachmentForm,
    ProviderStepForm,
    RequestHeaderForm,
    ReviewForm,
    ServiceLineForm,
)
from admindesk.envs.payer_portal_a.models import Member, PaAttachment, PaRequest, PaServiceLine, ProcedureCode, Provider
from admindesk.envs.payer_portal_a.organizations import (
    organization_choices,
    rendering_choices,
    requesting_choices,
    tax_id,
    tin_choices,
)
from admindesk.envs.payer_portal_a.policy import load_policy
from admindesk.envs.payer_portal_a.questionnaire_form import answers_from_form, questionnaire_form
from admindesk.envs.payer_portal_a.rules.determination import find_duplicates
from admindesk.envs.payer_portal_a.rules.payer_rules import rules_for
from admindesk.envs.payer_portal_a.submission import retro_refusal, submit_request
from admindesk.envs.payer_portal_a.validation import parse_diagnoses
from admindesk.envs.payer_portal_a.views.eligibility import find_member
from admindesk.envs.payer_portal_a.views.network import out_of_network
from admindesk.envs.payer_portal_a.web import attachment_form, payer_choices

pa_wizard = Blueprint("pa_wizard", __name__, url_prefix="/authorizations")
STEPS = (("member", "Request & patient"), ("providers", "Providers"), ("services", "Services"),
         ("questionnaire", "Clinical questions"), ("attachments", "Attachments"), ("review", "Review & submit"))
STEP_NAMES = [name for name, _ in STEPS]
MAX_LINES = 5


def _first_incomplete(pa: PaRequest) -> str | None:
    """The earliest step whose data is still missing (attachments are optional)."""
    if not (pa.coverage_id and pa.organization_npi):
        return "member"
    if not (pa.requesting_npi and pa.servicing_npi):
        return "providers"
    if not pa.lines:
        return "services"
    if pa.answers is None or pa.questionnaire != _questionnaire_id(pa):
        return "questionnaire"
    return None


def _questionnaire_id(pa: PaRequest) -> str:
    """Every line's questions are asked: the merged questionnaire of the lines' services."""
    return load_policy().questionnaire_for([line.code for line in pa.lines]).id


def _draft(request_id: int) -> PaRequest:
    pa = get_or_404(PaRequest, request_id)
    if pa.status != "Draft":
        abort(404)
    return pa


def _render(step: str, pa: PaRequest | None, status: int = 200, **context):
    return render_template(f"pa/{step}.html", section="auth", subsection="new", steps=STEPS, step=step,
                           pa=pa, incomplete=_first_incomplete(pa) if pa else "member", **context), status


def _header_form(data: dict | None) -> RequestHeaderForm:
    form = RequestHeaderForm(data=data)
    form.payer_id.choices, form.organization_npi.choices = payer_choices(), organization_choices()
    form.tin.choices = tin_choices()
    return form


def _header_member(form: RequestHeaderForm) -> Member | None:
    """The member the valid header finds; a TIN of another organization is refused."""
    if not form.validate():
        return None
    if form.tin.data != tax_id(form.organization_npi.data):
        form.tin.errors.append("This tax ID is not registered for the selected organization.")
        return None
    return find_member(form)


def _apply_header(pa: PaRequest, form: RequestHeaderForm, member: Member) -> None:
    organization = db().get(Provider, form.organization_npi.data)
    pa.organization_npi, pa.organization_name, pa.tin = organization.npi, organization.name, form.tin.data
    pa.request_type, pa.service_type = form.request_type.data, form.service_type.data
    pa.place_of_service = form.place_of_service.data
    pa.payer_id, pa.coverage_id, pa.member_id = member.payer_id, member.coverage_id, member.member_id
    pa.member_name, pa.member_dob, pa.plan_id = member.full_name, member.dob, member.plan_id


@pa_wizard.route("/new", methods=["GET", "POST"])
def start():
    """Step 1 of a new request: the header (organization, TIN, payer, request type, service
    type, place of service) and the patient; a valid header creates the draft."""
    describe(tab="pa_wizard", step="member")
    form = _header_form({"payer_id": request.args.get("payer_id", ""), "member_id": request.args.get("member_id", "")}
                        if request.method == "GET" else None)
    if not form.is_submitted():
        return _render("member", None, form=form)
    member = _header_member(form)
    if member is None:
        return _render("member", None, 422, form=form)
    session = db()
    pa = PaRequest(status="Draft", payer_id=member.payer_id, created_at=clock.now(), created_by=current_username())
    _apply_header(pa, form, member)
    session.add(pa)
    session.commit()
    describe(action="create_pa_draft", record_type="pa_request", record_id=str(pa.id), tab="pa_wizard", step="member")
    return redirect(url_for("pa_wizard.step", request_id=pa.id, step="providers"))


@pa_wizard.route("/requests/<int:request_id>/<step>", methods=["GET", "POST"])
def step(request_id: int, step: str):
    """One wizard step of a draft; a step can only be opened once the steps before it are done."""
    if step not in STEP_NAMES:
        abort(404)
    pa = _draft(request_id)
    describe(record_type="pa_request", record_id=str(pa.id), tab="pa_wizard", step=step)
    missing = _first_incomplete(pa)
    if missing and STEP_NAMES.index(step) > STEP_NAMES.index(missing):
        flash(f"Complete the {dict(STEPS)[missing]} step first.", "warning")
        return redirect(url_for("pa_wizard.step", request_id=pa.id, step=missing))
    return STEP_HANDLERS[step](pa)


def _member_step(pa: PaRequest):
    form = _header_form({"payer_id": pa.payer_id, "member_id": pa.member_id, "dob": pa.member_dob,
                         "organization_npi": pa.organization_npi, "tin": pa.tin, "request_type": pa.request_type,
                         "service_type": pa.service_type, "place_of_service": pa.place_of_service}
                        if request.method == "GET" else None)
    if not form.is_submitted():
        return _render("member", pa, form=form)
    member = _header_member(form)
    if member is None:
        return _render("member", pa, 422, form=form)
    _apply_header(pa, form, member)
    db().commit()
    describe(action="save_pa_step")
    return redirect(url_for("pa_wizard.step", request_id=pa.id, step="providers"))


def _provider_step(pa: PaRequest):
    form = ProviderStepForm(obj=pa if request.method == "GET" else None)
    form.requesting_npi.choices, form.servicing_npi.choices = requesting_choices(), rendering_choices()
    if not form.is_submitted():
        return _render("providers", pa, form=form)
    if not form.validate():
        return _render("providers", pa, 422, form=form)
    session = db()
    found = {field.name: session.get(Provider, field.data) for field in (form.requesting_npi, form.servicing_npi)}
    pa.requesting_npi, pa.requesting_name = found["requesting_npi"].npi, found["requesting_npi"].name
    pa.servicing_npi, pa.servicing_name = found["servicing_npi"].npi, found["servicing_npi"].name
    pa.contact_name = (form.contact_name.data or "").strip() or None
    pa.contact_phone = "".join(ch for ch in form.contact_phone.data or "" if ch.isdigit()) or None
    session.commit()
    describe(action="save_pa_step")
    return redirect(url_for("pa_wizard.step", request_id=pa.id, step="services"))


def _services_step(pa: PaRequest, form: ServiceLineForm | None = None, status: int = 200):
    if request.method == "POST" and form is None:
        if not pa.lines:
            flash("Add at least one service line.", "error")
            return _services_step(pa, ServiceLineForm(formdata=None), 422)
        return redirect(url_for("pa_wizard.step", request_id=pa.id, step="questionnaire"))
    return _render("services", pa, status, form=form or ServiceLineForm(formdata=None, place_of_service=pa.place_of_service),
                   duplicates=find_duplicates(db(), pa), max_lines=MAX_LINES, descriptions=_descriptions(pa))


def _descriptions(pa: PaRequest) -> dict[str, str]:
    codes = [line.code for line in pa.lines]
    return dict(db().execute(select(ProcedureCode.code, ProcedureCode.description)
                             .where(ProcedureCode.code.in_(codes))).all())


@pa_wizard.post("/requests/<int:request_id>/services/add")
def add_line(request_id: int):
    """Add a service line after checking its code and diagnoses against the code sets."""
    pa = _draft(request_id)
    describe(action="add_service_line", record_type="pa_request", record_id=str(pa.id), tab="pa_wizard", step="services")
    form = ServiceLineForm()
    session = db()
    codes: list[str] = []
    if form.validate():
        code = form.code.data.strip().upper()
        if session.get(ProcedureCode, code) is None:
            form.code.errors.append("This CPT/HCPCS code is not in the code set.")
        codes, error = parse_diagnoses(session, form.diagnosis_codes.data)
        if error:
            form.diagnosis_codes.errors.append(error)
        if len(pa.lines) >= MAX_LINES:
            form.code.errors.append(f"A request holds at most {MAX_LINES} service lines.")
    if not codes or form.code.errors:
        return _services_step(pa, form, 422)
    pa.lines.append(PaServiceLine(line_no=len(pa.lines) + 1, code=form.code.data.strip().upper(),
                                  units=form.units.data, diagnosis_codes=codes, from_date=form.from_date.data,
                                  to_date=form.to_date.data, place_of_service=form.place_of_service.data))
    session.commit()
    return redirect(url_for("pa_wizard.step", request_id=pa.id, step="services"))


@pa_wizard.post("/requests/<int:request_id>/services/<int:line_id>/remove")
def remove_line(request_id: int, line_id: int):
    """Remove a service line and renumber the rest."""
    pa = _draft(request_id)
    line = next((line for line in pa.lines if line.id == line_id), None)
    if line is None:
        abort(404)
    describe(action="remove_service_line", record_type="pa_request", record_id=str(pa.id), tab="pa_wizard",
             step="services", code=line.code)
    pa.lines.remove(line)
    for number, remaining in enumerate(pa.lines, start=1):
        remaining.line_no = number
    db().commit()
    flash(f"Service line {line.code} removed.", "success")
    return redirect(url_for("pa_wizard.step", request_id=pa.id, step="services"))


def _questionnaire_step(pa: PaRequest):
    policy = load_policy()
    questionnaire = policy.questionnaire(_questionnaire_id(pa))
    form = questionnaire_form(questionnaire, pa.answers if pa.questionnaire == questionnaire.id else None)
    if not form.is_submitted():
        return _render("questionnaire", pa, form=form, questionnaire=questionnaire)
    if not form.validate():
        return _render("questionnaire", pa, 422, form=form, questionnaire=questionnaire)
    pa.questionnaire, pa.answers = questionnaire.id, answers_from_form(questionnaire, form)
    db().commit()
    describe(action="save_pa_step")
    return redirect(url_for("pa_wizard.step", request_id=pa.id, step="attachments"))


def _attachments_step(pa: PaRequest, form: AttachmentForm | None = None, status: int = 200):
    if request.method == "POST" and form is None:
        return redirect(url_for("pa_wizard.step", request_id=pa.id, step="review"))
    return _render("attachments", pa, status, form=form or attachment_form())


@pa_wizard.post("/requests/<int:request_id>/attachments/add")
def add_attachment(request_id: int):
    """Attach one PDF (checked for size, type and name) with its document type."""
    pa = _draft(request_id)
    describe(action="upload_attachment", record_type="pa_request", record_id=str(pa.id), tab="pa_wizard",
             step="attachments")
    form = attachment_form()
    upload = None
    if form.validate():
        try:
            upload = read_pdf_upload(request.files.get("file"))
        except UploadError as exc:
            form.file.errors = [str(exc)]
    if upload is None:
        return _attachments_step(pa, form, 422)
    pa.attachments.append(PaAttachment(
        document_type=form.document_type.data, **stored_file_values(upload), stage="Initial", uploaded_at=clock.now(), uploaded_by=current_username()))
    db().commit()
    describe(file_name=upload.filename, sha256=upload.sha256)
    flash(f"{upload.filename} attached as {form.document_type.data}.", "success")
    return redirect(url_for("pa_wizard.step", request_id=pa.id, step="attachments"))


@pa_wizard.post("/requests/<int:request_id>/attachments/<int:attachment_id>/remove")
def remove_attachment(request_id: int, attachment_id: int):
    pa = _draft(request_id)
    attachment = next((a for a in pa.attachments if a.id == attachment_id), None)
    if attachment is None:
        abort(404)
    describe(action="remove_attachment", record_type="pa_request", record_id=str(pa.id), tab="pa_wizard",
             step="attachments", file_name=attachment.file_name)
    pa.attachments.remove(attachment)
    db().commit()
    flash(f"{attachment.file_name} removed.", "success")
    return redirect(url_for("pa_wizard.step", request_id=pa.id, step="attachments"))


def _review_step(pa: PaRequest, form: ReviewForm | None = None, status: int = 200, refusal: str | None = None):
    if request.method == "POST" and form is None:
        return redirect(url_for("pa_wizard.step", request_id=pa.id, step="review"))
    policy = load_policy()
    member = db().get(Member, pa.coverage_id)
    auth_needed = any(service and service.requires_auth(member.plan.product, line.place_of_service, member.plan.payer_id)
                      for line in pa.lines for service in [policy.service(line.code)])
    rules = rules_for(pa.payer_id)
    retro = any(line.from_date < clock.today() for line in pa.lines)
    return _render("review", pa, status, form=form or ReviewForm(formdata=None), member=member,
                   questionnaire=policy.questionnaire(pa.questionnaire), duplicates=find_duplicates(db(), pa),
                   auth_needed=auth_needed, retro_rule=rules.retro_rule_text() if retro else None, refusal=refusal,
                   out_of_network=out_of_network(pa))


@pa_wizard.post("/requests/<int:request_id>/submit")
def submit(request_id: int):
    """Submit the draft: the payer's rules decide at once and a case number is issued."""
    pa = _draft(request_id)
    describe(action="submit_pa_request", record_type="pa_request", record_id=str(pa.id), tab="pa_wizard", step="review")
    missing = _first_incomplete(pa)
    if missing:
        flash(f"Complete the {dict(STEPS)[missing]} step before submitting.", "error")
        return redirect(url_for("pa_wizard.step", request_id=pa.id, step=missing))
    form = ReviewForm()
    form.out_of_network = out_of_network(pa)
    if not form.validate():
        return _review_step(pa, form, 422)
    refusal = retro_refusal(pa, form.emergent.data, clock.today())
    if refusal:  # the payer does not accept it: no case is opened, the draft stays as it was
        describe(refused=refusal)
        return _review_step(pa, form, 422, refusal)
    submit_request(db(), pa, urgency=form.urgency.data, emergent=form.emergent.data,
                   attested_by=form.attesting_physician.data or "", expedited_reason=form.expedited_reason.data or "",
                   network_exception=form.network_exception.data or "",
                   in_network_checked=form.in_network_checked.data or "")
    describe(case_number=pa.case_number, status=pa.status)
    flash(f"Request submitted. Case number {pa.case_number}. Status: {pa.status}.", "success")
    return redirect(url_for("pa_cases.case_detail", case_number=pa.case_number))


STEP_HANDLERS = {"member": _member_step, "providers": _provider_step, "services": _services_step,
                 "questionnaire": _questionnaire_step, "attachments": _attachments_step, "review": _review_step}
