"""Authorizations landing page and the auth requirement lookup (with its reference)."""
from __future__ import annotations

from flask import Blueprint, render_template, request
from sqlalchemy import func, select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import current_username, db
from admindesk.envs.payer_portal_a import numbering
from admindesk.envs.payer_portal_a.forms import AuthLookupForm
from admindesk.envs.payer_portal_a.models import AuthLookup, PaRequest, Plan, ProcedureCode
from admindesk.envs.payer_portal_a.policy import NEVER_REVIEWED_CATEGORIES, load_policy
from admindesk.envs.payer_portal_a.web import payer_choices, plan_choices

auth_lookup = Blueprint("auth_lookup", __name__, url_prefix="/authorizations")


@auth_lookup.get("")
def hub():
    """Authorizations home: the four tools and the counts of open work."""
    describe(tab="authorizations")
    counts = dict(db().execute(select(PaRequest.status, func.count(PaRequest.id)).group_by(PaRequest.status)).all())
    return render_template("auth/hub.html", section="auth", subsection="", counts=counts, lookups=_recent_lookups())


def _recent_lookups() -> list[AuthLookup]:
    return list(db().scalars(select(AuthLookup).order_by(AuthLookup.id.desc()).limit(10)))


def requirement(plan: Plan, code: ProcedureCode, place_of_service: str) -> tuple[str, str]:
    """("Required" | "Not required", explanation) from the medical policy."""
    service = load_policy().service(code.code)
    if service is not None and service.requires_auth(plan.product, place_of_service, plan.payer_id):
        return "Required", (f"Prior authorization is required for {code.code} ({code.description}) under "
                            f"{plan.name} at place of service {place_of_service}. Submit a request with the "
                            "clinical documentation the payer's medical policy asks for.")
    if service is None and code.category in NEVER_REVIEWED_CATEGORIES:
        why = "this service category is never reviewed in advance"
    elif service is None:
        why = "the code is not on the plan's prior authorization list"
    else:
        why = f"the plan's policy exempts {plan.product} plans at this place of service"
    return "Not required", (f"Prior authorization is not required for {code.code} ({code.description}) under "
                            f"{plan.name} at place of service {place_of_service}: {why}. Keep this reference "
                            "number with the order.")


@auth_lookup.route("/lookup", methods=["GET", "POST"])
def lookup():
    """Code + plan + place of service -> Required / Not required, stored with a reference."""
    form = AuthLookupForm(data={"payer_id": request.args.get("payer_id", ""), "plan_id": request.args.get("plan_id", "")}
                          if request.method == "GET" else None)
    form.payer_id.choices = payer_choices()
    form.plan_id.choices = plan_choices()
    describe(tab="auth_lookup")
    if not form.is_submitted():
        return render_template("auth/lookup.html", section="auth", subsection="lookup", form=form,
                               recent=_recent_lookups())
    session = db()
    plan = code = None
    if form.validate():
        plan = session.get(Plan, form.plan_id.data)
        if plan is None or plan.payer_id != form.payer_id.data:
            form.plan_id.errors.append("Select a plan of the selected payer.")
        code = session.get(ProcedureCode, form.code.data.strip().upper())
        if code is None:
            form.code.errors.append("This CPT/HCPCS code is not in the code set. Check the code on the order.")
    if plan is None or code is None or form.plan_id.errors:
        return render_template("auth/lookup.html", section="auth", subsection="lookup", form=form,
                               recent=_recent_lookups()), 422
    result, explanation = requirement(plan, code, form.place_of_service.data)
    record = AuthLookup(reference_number=numbering.auth_lookup_reference(session), payer_id=plan.payer_id,
                        plan_id=plan.id, code=code.code, place_of_service=form.place_of_service.data, result=result,
                        explanation=explanation, looked_up_at=clock.now(), looked_up_by=current_username())
    session.add(record)
    session.commit()
    describe(action="auth_requirement_lookup", record_type="auth_lookup", record_id=record.reference_number,
             tab="auth_lookup", code=code.code, result=result)
    return render_template("auth/lookup_result.html", section="auth", subsection="lookup", record=record,
                           plan=plan, code=code)
