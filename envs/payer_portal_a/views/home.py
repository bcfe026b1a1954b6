"""Home dashboard and payer spaces (contacts, plans and the medical policy library)."""
from __future__ import annotations

from flask import Blueprint, g, render_template, request
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import db, get_or_404

from ..models import Letter, PaRequest, Payer, Plan, ProcedureCode
from ..policy import load_policy

home = Blueprint("home", __name__)
PAYER_TABS = ("overview", "policies")


@home.app_context_processor
def portal_globals():
    """The unread-letter count on the Correspondence tab."""
    if g.get("user") is None:
        return {}
    return {"unread_letters": db().scalar(select(func.count(Letter.id)).where(Letter.read_at.is_(None)))}


@home.get("/")
def index():
    """Dashboard: quick actions, drafts in progress, recent requests, payers served."""
    describe(tab="home")
    session = db()
    drafts = list(session.scalars(select(PaRequest).where(PaRequest.status == "Draft")
                                  .order_by(PaRequest.id.desc()).limit(5)))
    recent = list(session.scalars(select(PaRequest).where(PaRequest.status != "Draft")
                                  .order_by(PaRequest.submitted_at.desc(), PaRequest.id.desc()).limit(8)
                                  .options(selectinload(PaRequest.lines))))
    payers = list(session.scalars(select(Payer).order_by(Payer.name)))
    return render_template("home/index.html", section="home", drafts=drafts, recent=recent, payers=payers)


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
                           services=services, descriptions=descriptions, policy=policy)
