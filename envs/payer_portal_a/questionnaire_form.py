"""Builds the clinical questionnaire form of a service from the policy data."""
from __future__ import annotations

from datetime import date

from flask_wtf import FlaskForm
from wtforms import DecimalField, IntegerField, SelectField, StringField, TextAreaField
from wtforms.validators import InputRequired, Length, NumberRange, Optional

from admindesk.envs.payer_portal_a.forms import USDateField
from admindesk.envs.payer_portal_a.policy import Question, Questionnaire


def _field(question: Question):
    checks = [InputRequired(message="Answer this question.")] if question.required else [Optional()]
    if question.type == "number":
        low = question.min if question.min is not None else 0
        high = question.max if question.max is not None else 10**6
        checks.append(NumberRange(low, high, message=f"Enter a number from {low:g} to {high:g}."))
        kind = DecimalField if question.decimal else IntegerField
        return kind(question.label, validators=checks)
    if question.type in ("choice", "yesno"):
        options = question.choices or ("Yes", "No")
        return SelectField(question.label, choices={"": "Select an answer", **{c: c for c in options}},
                           validators=checks)
    if question.type == "date":
        return USDateField(question.label, validators=checks)
    limit = Length(max=question.max_length, message=f"At most {question.max_length} characters.")
    if question.max_length > 200:
        return TextAreaField(question.label, validators=[*checks, limit])
    return StringField(question.label, validators=[*checks, limit])


def questionnaire_form(questionnaire: Questionnaire, answers: dict | None) -> FlaskForm:
    """A form with one field per question, prefilled from the saved answers (or the posted ones)."""
    form_class = type("QuestionnaireForm", (FlaskForm,), {q.id: _field(q) for q in questionnaire.questions})
    saved = {}
    for question in questionnaire.questions:
        value = (answers or {}).get(question.id)
        if question.type == "date" and isinstance(value, str):
            value = date.fromisoformat(value)
        saved[question.id] = value
    return form_class(data=saved)


def answers_from_form(questionnaire: Questionnaire, form: FlaskForm) -> dict:
    """Plain JSON values for storage: numbers, strings, ISO dates; blanks left out."""
    answers = {}
    for question in questionnaire.questions:
        value = form[question.id].data
        if value is None or value == "":
            continue
        if question.type == "date":
            value = value.isoformat()
        elif question.type == "number":
            value = float(value) if question.decimal else int(value)
        else:
            value = value.strip()
        answers[question.id] = value
    return answers
