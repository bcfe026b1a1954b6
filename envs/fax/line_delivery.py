"""A delivered job reaches the machine it dialed: the other apps are offered it over the
fax line (common.fax_line), so a payer's intake line files what is faxed to it, and a reply
it faxes straight back (a request form returned as incomplete) lands in our inbox."""
from __future__ import annotations

from flask import current_app
from sqlalchemy.orm import object_session

from admindesk.envs.common.fax_line import FaxDelivery, FaxLineError, deliver
from admindesk.envs.fax.fax_files import file_reply
from admindesk.envs.fax.models import OutboundFax
from admindesk.envs.fax.numbers import format_fax_number


def delivery_of(job: OutboundFax) -> FaxDelivery:
    """What the receiving machine gets: our line's number as caller and CSID, the pages as sent."""
    return FaxDelivery(to_number=job.to_number, caller_number=job.from_number,
                       csid=format_fax_number(job.from_number), received_at=job.completed_at,
                       documents=(job.cover_sheet, *(item.content for item in job.attachments)))


def deliver_to_peers(job: OutboundFax) -> None:
    """Offer a job the carrier reports Sent to the run's other apps (none configured: nothing),
    and file the reply the answering app faxed back, if any.

    A peer that cannot be reached is an infrastructure fault, not a carrier outcome: the job
    stays Sent and the fault goes to the app's log (the harness restarts a dead app)."""
    config = current_app.extensions["admindesk"].config
    if not config.peers:
        return
    try:
        answer = deliver(config.peers, config.token, delivery_of(job))
    except FaxLineError as exc:
        current_app.logger.error("fax job %s to %s was not delivered: %s", job.id, job.to_number, exc)
        return
    if answer.reply is not None:
        reply = answer.reply
        file_reply(object_session(job), job, reply.csid, reply.from_number, reply.received_at, reply.pages_text)
