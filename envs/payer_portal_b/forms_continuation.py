"""The precertification request's Continuation of Therapy section (policy KM-RX-520): the
approval it continues and the DAS28 response, the pre-treatment baseline and the latest score
with the dates they were measured."""
from __future__ import annotations

from wtforms import DecimalField, StringField, ValidationError
from wtforms.validators import Length, NumberRange, Optional

from admindesk.envs.common import clock
from admindesk.envs.payer_portal_b.fields import PortalDateField

DAS28_RANGE = NumberRange(0, 10, "A DAS28 is between 0 and 10.")


class ContinuationAnswers:
    """A continuation names the authorization it continues and states both scores with their dates."""

    # No Optional(): it would skip the check that DAS28 answers come with the authorization they renew.
    continuation_of = StringField("Continuation: current authorization number", [Length(max=20)],
                                  description="Continuation of therapy policy KM-RX-520; leave blank for an "
                                              "initial request.")
    baseline_das28 = DecimalField("Continuation: pre-treatment DAS28 (before the first dose)", [Optional(), DAS28_RANGE],
                                  places=1)
    baseline_das28_date = PortalDateField("Continuation: date the pre-treatment DAS28 was measured (DD-MMM-YYYY)",
                                          [Optional()])
    current_das28 = DecimalField("Continuation: most recent DAS28", [Optional(), DAS28_RANGE], places=1)
    current_das28_date = PortalDateField("Continuation: date the most recent DAS28 was measured (DD-MMM-YYYY)",
                                         [Optional()])

    def validate_continuation_of(self, field) -> None:
        """A continuation states both scores and their dates, measured in order and not in the future."""
        answers = (self.baseline_das28, self.baseline_das28_date, self.current_das28, self.current_das28_date)
        if not (field.data or "").strip():
            if any(answer.data is not None for answer in answers):
                raise ValidationError("Enter the authorization this request continues, or clear the DAS28 answers.")
            return
        if any(answer.data is None for answer in answers):
            raise ValidationError("A continuation states the pre-treatment and the most recent DAS28 with the dates "
                                  "they were measured.")
        if self.current_das28_date.data > clock.today():
            raise ValidationError("The most recent DAS28 cannot be measured after today.")
        if self.baseline_das28_date.data >= self.current_das28_date.data:
            raise ValidationError("The pre-treatment DAS28 is measured before the most recent one.")

    def continuation_answers(self) -> dict:
        """The section's answers as stored (empty for an initial request)."""
        if not (self.continuation_of.data or "").strip():
            return {}
        return {"continuation_of": self.continuation_of.data.strip().upper(),
                "baseline_das28": float(self.baseline_das28.data),
                "baseline_das28_date": self.baseline_das28_date.data.isoformat(),
                "current_das28": float(self.current_das28.data),
                "current_das28_date": self.current_das28_date.data.isoformat()}
