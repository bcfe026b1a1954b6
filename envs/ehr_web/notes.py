"""Notes on a patient, order, claim or work item: one table, one form, shared here."""
from __future__ import annotations

from flask import g
from sqlalchemy import select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import current_username, db
from admindesk.envs.ehr_web.forms import NoteForm
from admindesk.envs.ehr_web.models_work import Note


def notes_for(subject_type: str, subject_id: str) -> list[Note]:
    """Notes on one record, newest first."""
    return list(db().scalars(select(Note).where(Note.subject_type == subject_type, Note.subject_id == subject_id)
                             .order_by(Note.created_at.desc(), Note.id.desc())))


def add_note(form: NoteForm, mrn: str, subject_type: str, subject_id: str) -> Note | None:
    """Validate and store a note; None (nothing stored) when the form has errors."""
    describe(action="add_note", record_type=subject_type, record_id=subject_id)
    if not form.validate():
        return None
    note = store_note(mrn, subject_type, subject_id, form.text.data)
    db().commit()
    describe(note_id=note.id)
    return note


def store_note(mrn: str, subject_type: str, subject_id: str, text: str) -> Note:
    """Add a note by the signed-in user (the caller validates and commits)."""
    note = Note(mrn=mrn, subject_type=subject_type, subject_id=subject_id, author=current_username(),
                author_name=g.user.display_name, created_at=clock.now(), text=text.strip())
    db().add(note)
    db().flush()
    return note
