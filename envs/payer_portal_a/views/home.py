"""Home dashboard and payer spaces (contacts, plans and the medical policy library)."""
from __future__ import annotations

from datetime import timedelta

from flask import Blueprint, g, render_template, request, url_for
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import db, get_or_404
from admindesk.envs.payer_portal_a.lifecycle_models import AuthAppeal
from admindesk.envs.payer_portal_a.models import Appeal, Letter, PaRequest, Payer, Plan, ProcedureCode
from admindesk.envs.payer_portal_a.payer_space import manual, news, phone_text, resources
from admindesk.envs.payer_portal_a.policy import load_policy
from admindesk.envs.payer_portal_a.rules.determination import AUTHORIZED_STATUSES
from admindesk.envs.payer_portal_a.rules.preservice_decisions import settle_due_preservice_appeals

home = Blueprint("home", __name__)
PAYER_TABS = ("overview", "news", "resources", "manual", "policies")
HOME_NEWS_PER_PAYER = 2
EXPIRING_WITHIN_DAYS = 30


@home.app_template_filter("pl_phone")
def pl_phone(digits: str | None) -> str:
    """A 10-digit number as ProviderLink writes it (717-555-0100)."""
    return phone_text(digits)


@home.app_context_processor
def portal_globals():
    """The unread-letter count on the Correspondence tab and the payers the footer lists."""
    if g.get("user") is None:
        return {}
    return {"unread_letters": db().scalar(select(func.count(Letter.id)).where(Letter.read_at.is_(None))),
            "portal_payers": list(db().scalars(select(Payer).order_by(Payer.name)))}


@home.get("/")
def index():
    """Dashboard: announcement tiles, notifications, drafts, recent requests, payers served."""
    describe(tab="home")
    session = db()
    settle_due_preservice_appeals(session)
    drafts = list(session.scalars(select(PaRequest).where(PaRequest.status == "Draft")
                                  .order_by(PaRequest.id.desc()).limit(5)))
    recent = list(session.scalars(select(PaRequest).where(PaRequest.status != "Draft")
                                  .order_by(PaRequest.submitted_at.desc(), PaRequest.id.desc()).limit(10)
                                  .options(selectinload(PaRequest.lines))))
    payers = list(session.scalars(select(Payer).order_by(Payer.name)))
    tiles = sorted(((payer, item) for payer in payers for item in news(payer, clock.today())[:HOME_NEWS_PER_PAYER]),
                   key=lambda pair: pair[1].posted, reverse=True)
    return render_template("home/index.html", section="home", drafts=drafts, recent=recent, payers=payers,
                           tiles=tiles[:4], notifications=_notifications())


def _notifications() -> list[tuple[str, str, str]]:
    """(kind, text, link) for what needs the office: pends, authorizations ending soon,
    letters, appeals in review.
    A pend links to the member's requests (the status inquiry), where the case is listed."""
    session = db()
    rows = []
    for pa in session.scalars(select(PaRequest).where(PaRequest.status == "Pended").order_by(PaRequest.id.desc()).limit(5)):
        rows.append(("Pended", f"Case {pa.case_number} for {pa.member_name} waits for information: "
                               f"{'; '.join(pa.missing_items or [])}.",
                     url_for("pa_cases.status", payer_id=pa.payer_id, member_id=pa.member_id)))
    soon = clock.today() + timedelta(days=EXPIRING_WITHIN_DAYS)
    for pa in session.scalars(select(PaRequest).where(PaRequest.status.in_(AUTHORIZED_STATUSES),
                                                      PaRequest.approved_end >= clock.today(),
                                                      PaRequest.approved_end <= soon)
                              .order_by(PaRequest.approved_end).limit(3)):
        rows.append(("Expiring", f"Authorization {pa.auth_number} for {pa.member_name} ends "
                                 f"{pa.approved_end:%m/%d/%Y}; request an extension if the service continues.",
                     url_for("pa_actions.change", case_number=pa.case_number)))
    for letter in session.scalars(select(Letter).where(Letter.read_at.is_(None)).order_by(Letter.id.desc()).limit(5)):
        rows.append(("Letter", f"{letter.subject} ({letter.payer.name})",
                     url_for("correspondence.letter", letter_number=letter.letter_number)))
    for appeal in session.scalars(select(Appeal).where(Appeal.status == "In Review").order_by(Appeal.decision_due).limit(3)):
        rows.append(("Appeal", f"Claim appeal {appeal.reference_number} in review, decision due {appeal.decision_due:%m/%d/%Y}.",
                     url_for("appeals.detail", reference_number=appeal.reference_number)))
    for appeal in session.scalars(select(AuthAppeal).where(AuthAppeal.status == "In Review").limit(3)):
        rows.append(("Appeal", f"Pre-service appeal {appeal.reference_number} of case {appeal.case_number}, decision due "
                               f"{appeal.decision_due_at:%m/%d/%Y}.",
                     url_for("pa_cases.status", case_number=appeal.case_number)))
    return rows


@home.get("/payers")
def payers():
    """Payer spaces: every payer this portal serves."""
    describe(tab="payer_spaces")
    rows = list(db().scalars(select(Payer).order_by(Payer.name)))
    return render_template("home/payers.html", section="payers", payers=rows)


@home.get("/payers/<payer_id>")
def payer_space(payer_id: str):
    """One payer's space: contacts and plans, or its medical policy library."""
    payer = get_or_404(Payer, payer_id)
    tab = request.args.get("tab", "overview")
    tab = tab if tab in PAYER_TABS else "overview"
    describe(record_type="payer", record_id=payer.id, tab=tab)
    plans = list(db().scalars(select(Plan).where(Plan.payer_id == payer.id).order_by(Plan.name)))
    policy = load_policy()
    descriptions = dict(db().execute(select(ProcedureCode.code, ProcedureCode.description)).all())
    services = sorted(policy.services.values(), key=lambda s: s.code)
    return render_template("home/payer_space.html", section="payers", payer=payer, tab=tab, plans=plans,
                           services=services, descriptions=descriptions, policy=policy,
                           news=news(payer, clock.today()), resources=resources(payer), manual=manual(payer))
