"""The EHR's blueprints, one per area of the product."""
from __future__ import annotations

from .billing import billing
from .chart import chart
from .coverage import coverage
from .documents import documents
from .home import home
from .inbasket import inbasket
from .orders import orders
from .patients import patients
from .queue_desk import queue_desk
from .queues import queues

BLUEPRINTS = (home, inbasket, patients, chart, coverage, orders, documents, billing, queues, queue_desk)
