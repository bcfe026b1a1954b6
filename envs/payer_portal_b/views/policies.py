"""The medical policy library: search, policy documents and fax request forms (blank, or
filled in online and downloaded for faxing)."""
from __future__ import annotations

from flask import Blueprint, abort, render_template, request
from sqlalchemy import or_, select

from admindesk.envs.common.audit import describe
from admindesk.envs.common.pagination import apply_sort, paginate
from admindesk.envs.common.web import db, get_or_404
from admindesk.envs.payer_portal_b.fax_form import fax_form_filename, policy_codes, render_fax_form
from admindesk.envs.payer_portal_b.forms import FaxRequestForm, with_prompt
from admindesk.envs.payer_portal_b.models import DmeRequirement, MedicalPolicy, PolicyCode, ProcedureCode
from admindesk.envs.payer_portal_b.portal import payer, pdf_response, requested_page_size, status_counts
from admindesk.envs.payer_portal_b.rules.dme_rules import requirement_text

policies = Blueprint("policies", __name__, url_prefix="/policies")
SORT_COLUMNS = {"number": MedicalPolicy.policy_number, "title": MedicalPolicy.title,
                "category": MedicalPolicy.category, "effective": MedicalPolicy.effective_date}
SUBMISSION_FILTERS = ("Online", "Fax only")


@policies.get("")
def library():
    """Policies filtered by keyword or code, category and submission method."""
    query = request.args.get("q", "").strip()[:80]
    category = request.args.get("category", "")
    submission = request.args.get("submission", "")
    stmt = select(MedicalPolicy)
    if query:
        pattern = f"%{query}%"
        by_code = select(PolicyCode.policy_number).where(PolicyCode.code == query.upper())
        by_site = select(PolicyCode.site_of_care_policy).where(PolicyCode.code == query.upper())
        by_continuation = select(PolicyCode.continuation_policy).where(PolicyCode.code == query.upper())
        stmt = stmt.where(or_(MedicalPolicy.title.ilike(pattern), MedicalPolicy.policy_number.ilike(pattern),
                              MedicalPolicy.summary.ilike(pattern), MedicalPolicy.policy_number.in_(by_code),
                              MedicalPolicy.policy_number.in_(by_site),
                              MedicalPolicy.policy_number.in_(by_continuation)))
    tabs = status_counts(MedicalPolicy.category, ())
    if category:
        stmt = stmt.where(MedicalPolicy.category == category)
    if submission in SUBMISSION_FILTERS:
        stmt = stmt.where(MedicalPolicy.submission_method == submission)
    page = paginate(db(), apply_sort(stmt, SORT_COLUMNS, "number"), per_page=requested_page_size())
    categories = db().scalars(select(MedicalPolicy.category).distinct().order_by(MedicalPolicy.category))
    codes = _codes_by_policy([p.policy_number for p in page.items])
    describe(record_type="policy_library", tab="search", query=query, category=category, submission=submission)
    return render_template("policies.html", page=page, codes=codes, query=query, category=category,
                           submission=submission, categories=list(categories), submissions=SUBMISSION_FILTERS,
                           tabs=tabs)


def _codes_by_policy(numbers: list[str]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {number: [] for number in numbers}
    for link in db().scalars(select(PolicyCode).where(or_(PolicyCode.policy_number.in_(numbers),
                                                          PolicyCode.site_of_care_policy.in_(numbers),
                                                          PolicyCode.continuation_policy.in_(numbers)))
                             .order_by(PolicyCode.code)):
        for number in (link.policy_number, link.site_of_care_policy, link.continuation_policy):
            if number in grouped:
                grouped[number].append(link.code)
    return grouped


@policies.get("/<policy_number>")
def detail(policy_number: str):
    """The full policy document: covered codes, criteria, documentation, how to submit."""
    policy = get_or_404(MedicalPolicy, policy_number)
    # A site-of-care or continuation policy lists the drugs whose infusion or renewal it governs.
    codes = list(db().scalars(select(ProcedureCode).join(PolicyCode, PolicyCode.code == ProcedureCode.code)
                              .where(or_(PolicyCode.policy_number == policy_number,
                                         PolicyCode.site_of_care_policy == policy_number,
                                         PolicyCode.continuation_policy == policy_number))
                              .order_by(ProcedureCode.code)))
    requirements = {r.code: requirement_text(r) for r in db().scalars(
        select(DmeRequirement).where(DmeRequirement.policy_number == policy_number))}
    # A drug's limit is counted in its own billing unit (J1745: 10 mg), code by code.
    billing_limits = {link.code: (link.billing_unit, link.max_billing_units) for link in db().scalars(
        select(PolicyCode).where(or_(PolicyCode.policy_number == policy_number,
                                     PolicyCode.site_of_care_policy == policy_number,
                                     PolicyCode.continuation_policy == policy_number),
                                 PolicyCode.max_billing_units.is_not(None)))}
    describe(record_type="policy", record_id=policy_number, tab="document")
    return render_template("policy_detail.html", policy=policy, codes=codes, requirements=requirements,
                           billing_limits=billing_limits, payer=payer())


@policies.get("/<policy_number>/fax-form.pdf")
def fax_form(policy_number: str):
    """Download the Precertification Request Fax Form of a fax-only policy."""
    policy = get_or_404(MedicalPolicy, policy_number)
    if not policy.fax_only:
        abort(404)
    describe(action="download_fax_form", record_type="policy", record_id=policy_number, tab="fax_form")
    return pdf_response(render_fax_form(db(), policy, payer()), fax_form_filename(policy))


@policies.route("/<policy_number>/fax-form", methods=["GET", "POST"])
def fill_fax_form(policy_number: str):
    """Fill in a fax-only policy's request form online; a complete form downloads as the
    filled PDF, ready to fax (nothing is sent to the payer from here)."""
    policy = get_or_404(MedicalPolicy, policy_number)
    if not policy.fax_only:
        abort(404)
    form = FaxRequestForm()
    form.service_code.choices = with_prompt((c.code, f"{c.code} - {c.description}")
                                            for c in policy_codes(db(), policy))
    if form.validate_on_submit():
        describe(action="download_fax_form", record_type="policy", record_id=policy_number, tab="filled_form",
                 service_code=form.service_code.data)
        return pdf_response(render_fax_form(db(), policy, payer(), form.entries()), fax_form_filename(policy))
    describe(record_type="policy", record_id=policy_number, tab="fax_form_fill")
    status = 422 if form.is_submitted() else 200
    return render_template("fax_form_fill.html", policy=policy, form=form, payer=payer()), status
