"""Chart tabs a revenue-cycle desk reads beside the clinical ones: Results (lab, imaging and
sleep-study reports, newest first), Letters (payer correspondence about the patient and
letters filed in the chart) and Media (every document as its scanned pages)."""
from __future__ import annotations

from flask import Blueprint
from sqlalchemy import select

from admindesk.envs.common.web import db
from admindesk.envs.ehr_web.document_pages import document_scan
from admindesk.envs.ehr_web.models import Document
from admindesk.envs.ehr_web.models_desk import PAYER_CORRESPONDENCE, InBasketMessage
from admindesk.envs.ehr_web.views.chart_base import render_chart
from admindesk.envs.ehr_web.views.common import patient_or_404

chart_more = Blueprint("chart_more", __name__, url_prefix="/patients/<mrn>")
RESULT_KINDS = ("Lab Result", "Imaging Report", "Sleep Study")
LETTER_KINDS = ("Payer Letter", "Authorization Approval", "Denial Letter", "Appeal Letter", "Correspondence")
SUMMARY_CHARS = 220


def _documents(mrn: str, kinds: tuple[str, ...] | None = None) -> list[Document]:
    stmt = select(Document).where(Document.mrn == mrn)
    if kinds:
        stmt = stmt.where(Document.kind.in_(kinds))
    return list(db().scalars(stmt.order_by(Document.document_date.desc(), Document.id.desc())))


def _impression(text: str) -> str:
    """The report's findings in one line: its text after the heading lines, shortened."""
    body = " ".join(line.strip() for line in text.splitlines()[2:] if line.strip())
    return body if len(body) <= SUMMARY_CHARS else body[:SUMMARY_CHARS].rsplit(" ", 1)[0] + " ..."


@chart_more.get("/results")
def results(mrn: str):
    """Resulted tests, newest first, with the report's findings."""
    patient = patient_or_404(mrn)
    rows = [(doc, _impression(doc.text)) for doc in _documents(mrn, RESULT_KINDS)]
    return render_chart(patient, "results", "chart_results.html", results=rows)


@chart_more.get("/letters")
def letters(mrn: str):
    """Payer letters and notices about the patient (from the In Basket) and letters filed in the chart."""
    patient = patient_or_404(mrn)
    payer_mail = list(db().scalars(select(InBasketMessage).where(InBasketMessage.mrn == mrn,
                                                                 InBasketMessage.folder == PAYER_CORRESPONDENCE)
                                   .order_by(InBasketMessage.received_at.desc(), InBasketMessage.id.desc())))
    return render_chart(patient, "letters", "chart_letters.html", payer_mail=payer_mail,
                        filed=_documents(mrn, LETTER_KINDS))


@chart_more.get("/media")
def media(mrn: str):
    """Every document as scanned media: first-page thumbnail, page count, link to the viewer."""
    patient = patient_or_404(mrn)
    rows = [(doc, document_scan(doc, patient).page_count) for doc in _documents(mrn)]
    return render_chart(patient, "media", "chart_media.html", media=rows)
