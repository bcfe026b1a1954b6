"""The EHR's blueprints, one per area of the product."""
from __future__ import annotations

from admindesk.envs.ehr_web.views.alerts import alerts, refuse_edits_to_a_locked_chart
from admindesk.envs.ehr_web.views.billing import billing
from admindesk.envs.ehr_web.views.chart import chart
from admindesk.envs.ehr_web.views.chart_more import chart_more
from admindesk.envs.ehr_web.views.coverage import coverage
from admindesk.envs.ehr_web.views.credentialing import credentialing
from admindesk.envs.ehr_web.views.documents import documents
from admindesk.envs.ehr_web.views.home import home
from admindesk.envs.ehr_web.views.inbasket import inbasket
from admindesk.envs.ehr_web.views.orders import orders
from admindesk.envs.ehr_web.views.patients import patients
from admindesk.envs.ehr_web.views.queue_desk import queue_desk
from admindesk.envs.ehr_web.views.queues import queues
from admindesk.envs.ehr_web.views.staff_messages import staff_messages

BLUEPRINTS = (alerts, home, inbasket, staff_messages, patients, chart, chart_more, coverage, orders, documents, billing,
              queues, queue_desk, credentialing)
# The chart's own blueprints: their edits are refused while another user holds the chart (a
# message to a clinician is no chart edit).
for _chart_blueprint in (chart, coverage, orders, documents, billing):
    _chart_blueprint.before_request(refuse_edits_to_a_locked_chart)
