"""Saving an order's authorization section (status, payer, numbers, approved units and
dates): the rules of AuthorizationForm against the authorization on file, and the history
row a save leaves. The order screen and the FHIR API (a ClaimResponse the desk records) both
save through `save_authorization`; later changes (extension, cancellation...) are auth_changes.
"""
from __future__ import annotations

from sqlalchemy import select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import current_username, db
from admindesk.envs.ehr_web import auth_changes
from admindesk.envs.ehr_web.forms import AuthorizationForm, options
from admindesk.envs.ehr_web.models import Order, OrderAuthorization, Payer, ProcedureCode
from admindesk.envs.ehr_web.vocab import CHANGE_ONLY_AUTH_STATUSES


def payer_choices() -> list[tuple[str, str]]:
    """Payers for the authorization's payer picker, by name."""
    return [("", "- Select payer -")] + [(p.id, p.name) for p in db().scalars(select(Payer).order_by(Payer.name))]


def authorization_form(**form_args) -> AuthorizationForm:
    """The authorization form with its payer choices; `form_args` as FlaskForm takes them
    (none: bound to the request; `formdata=None` and field values: filled for display)."""
    form = AuthorizationForm(**form_args)
    form.payer_id.choices = options(payer_choices())
    return form


def save_authorization(order: Order, form: AuthorizationForm) -> OrderAuthorization | None:
    """Check the filled form against the order's authorization on file, then save it with its
    history row; None, with nothing written and the reasons as field errors, when refused."""
    describe(action="update_authorization", record_type="order", record_id=order.id)
    auth = db().get(OrderAuthorization, order.id) or OrderAuthorization(order_id=order.id, units_used=0)
    valid = form.validate()
    valid = form.check_approval_terms({"approved_units": str(auth.approved_units or ""),
                                       "start_date": auth.start_date, "end_date": auth.end_date}) and valid
    if form.status.data in CHANGE_ONLY_AUTH_STATUSES and form.status.data != auth.status:
        form.status.errors = list(form.status.errors) + [
            f"Record a {form.status.data.lower()} authorization with 'Record a change' below, which checks that "
            "it can be " + form.status.data.lower() + "."]
        valid = False
    code = form.approved_code.data or None
    if code and db().get(ProcedureCode, code) is None:
        form.approved_code.errors = list(form.approved_code.errors) + [f"{code} is not a CPT/HCPCS code on file."]
        valid = False
    if not valid:
        return None
    before = auth.status
    auth.status = form.status.data
    auth.payer_id = form.payer_id.data or None
    auth.auth_number = form.auth_number.data or None
    auth.reference_number = form.reference_number.data or None
    auth.approved_units = int(form.approved_units.data) if form.approved_units.data else None
    # The order's own code is the default: only a different approved code is kept.
    auth.approved_code = code if code != order.code else None
    auth.start_date, auth.end_date = form.start_date.data, form.end_date.data
    auth.updated_at, auth.updated_by = clock.now(), current_username()
    db().add(auth)
    db().flush()
    auth_changes.record_event(db(), auth, auth_changes.saved_event_name(db(), auth), current_username())
    db().commit()
    describe(status_before=before, status_after=auth.status, auth_number=auth.auth_number)
    return auth
