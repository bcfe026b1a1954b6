"""Claim.supportingInfo of a PAS request: Keystone's precertification questions and the PDFs.

Category `info` with a code of Keystone's precert-question system answers one question of the
form (codes.QUESTIONS); category `attachment` carries a PDF (valueAttachment, or a
DocumentReference in the Bundle) in one of the form's three attachment slots, its document
type named by the code. Other supporting information is not Keystone's to read and is left.
"""
from __future__ import annotations

import io

from werkzeug.datastructures import FileStorage

from admindesk.envs.payer_portal_b.forms import ATTACHMENT_SLOTS
from admindesk.envs.payer_portal_b.pas.bundle_reading import PasBundle, coding_code
from admindesk.envs.payer_portal_b.pas.codes import (
    DOCUMENT_TYPE_CODES,
    DOCUMENT_TYPE_SYSTEM,
    INFO_CATEGORY_SYSTEM,
    QUESTION_SYSTEM,
    QUESTIONS,
)
from admindesk.envs.payer_portal_b.pas.form_input import FormInput
from admindesk.envs.payer_portal_b.pas.outcomes import Issue
from admindesk.envs.payer_portal_b.portal import DOCUMENT_TYPES


def read_supporting_info(entries: PasBundle, claim_path: str, claim, form: FormInput) -> None:
    """Put the Claim's answers and PDFs on the form (problems go to `entries.issues`)."""
    attachments = []
    answered: set[str] = set()
    for index, info in enumerate(claim.supportingInfo or []):
        path = f"{claim_path}.supportingInfo[{index}]"
        if coding_code(info.category, (INFO_CATEGORY_SYSTEM,)) == "attachment":
            attachments.append((path, info))
            continue
        question = coding_code(info.code, (QUESTION_SYSTEM,))
        if question is None:
            continue  # supporting information Keystone does not ask for
        if question not in QUESTIONS:
            entries.issues.append(Issue(f"{path}.code", f"{question} is not one of Keystone's precertification "
                                        f"questions ({', '.join(QUESTIONS)})."))
            continue
        name, kind = QUESTIONS[question]
        if name in answered:
            entries.issues.append(Issue(f"{path}.code", f"{question} is answered twice."))
        answered.add(name)
        form.put(name, _answer(entries, path, info, question, kind), f"{path}.value")
    if len(attachments) > ATTACHMENT_SLOTS:
        entries.issues.append(Issue(f"{claim_path}.supportingInfo", f"Keystone Mutual takes at most "
                                                                    f"{ATTACHMENT_SLOTS} attachments per request."))
    for slot, (path, info) in enumerate(attachments[:ATTACHMENT_SLOTS], start=1):
        _read_attachment(entries, path, info, slot, form)


def _answer(entries: PasBundle, path: str, info, question: str, kind: str) -> str:
    """The form's text for one answer ("" and an issue when the value has the wrong type)."""
    if kind == "string" and info.valueString is not None:
        return info.valueString.strip()
    if kind == "yes_no" and info.valueBoolean is not None:
        return "Yes" if info.valueBoolean else "No"
    if kind == "yes_no" and (info.valueString or "").strip().lower() in ("yes", "no"):
        return info.valueString.strip().capitalize()
    if kind == "quantity" and info.valueQuantity is not None and info.valueQuantity.value is not None:
        value = info.valueQuantity.value
        return str(int(value)) if value == int(value) else str(value)
    wanted = {"string": "valueString", "yes_no": "valueBoolean", "quantity": "valueQuantity"}[kind]
    entries.issues.append(Issue(f"{path}.value", f"Answer {question} with {wanted}."))
    return ""


def _read_attachment(entries: PasBundle, path: str, info, slot: int, form: FormInput) -> None:
    document_type = _document_type(info.code)
    if document_type is None:
        entries.issues.append(Issue(f"{path}.code", f"Name the document type: a code of {DOCUMENT_TYPE_SYSTEM} "
                                    f"({', '.join(DOCUMENT_TYPE_CODES)}) or the type's name in code.text."))
    attachment, where = info.valueAttachment, f"{path}.valueAttachment"
    if attachment is None and info.valueReference is not None:
        document = entries.resolve(info.valueReference, f"{path}.valueReference", ("DocumentReference",))
        if document is None:
            return
        attachment, where = document[1].content[0].attachment, f"{document[0]}.content[0].attachment"
    if attachment is None:
        entries.issues.append(Issue(path, "An attachment carries its PDF in valueAttachment (or a DocumentReference "
                                          "in this Bundle)."))
        return
    if attachment.contentType != "application/pdf":
        entries.issues.append(Issue(f"{where}.contentType", "Keystone Mutual accepts PDF documents only "
                                                            "(contentType application/pdf)."))
    if not attachment.data:
        entries.issues.append(Issue(f"{where}.data", "Send the PDF itself, base64-encoded, in Attachment.data."))
        return
    form.put(f"document_type_{slot}", document_type or "", f"{path}.code")
    form.files[f"attachment_{slot}"] = FileStorage(io.BytesIO(attachment.data), filename=attachment.title or
                                                   f"attachment-{slot}.pdf", content_type="application/pdf")
    form.locations[f"attachment_{slot}"] = f"{where}.data"


def _document_type(concept) -> str | None:
    if concept is None:
        return None
    code = coding_code(concept, (DOCUMENT_TYPE_SYSTEM,))
    if code in DOCUMENT_TYPE_CODES:
        return DOCUMENT_TYPE_CODES[code]
    by_name = {name.lower(): name for name in DOCUMENT_TYPES}
    return by_name.get((concept.text or "").strip().lower())
