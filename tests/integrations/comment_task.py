"""A minimal designer task for the integration tests: comment on one order."""
from __future__ import annotations

import textwrap

COMMENT = "Reviewed by the integration test"


def write_comment_task(folder, task_id: str, order: str) -> None:
    """A designer's task file: comment on bare-world order `order` (every check deterministic,
    so no judge is needed). The apps need not know it: it builds no state of its own."""
    (folder / f"{task_id}.yaml").write_text(textwrap.dedent(f"""\
        id: {task_id}
        goal: Add the order comment "{COMMENT}" to order {order}.
        start: {{app: ehr_web, path: /orders/{order}, login: true}}
        max_steps: 10
        subtasks:
          - id: review_order
            description: Open the order.
            category: information_retrieval
            checks:
              - kind: audit
                description: the order was opened
                app: ehr_web
                match: {{action: view, record_type: order, record_id: '{order}'}}
          - id: comment
            description: Comment on the order.
            depends_on: [review_order]
            category: documentation
            checks:
              - kind: query
                description: the order carries the comment
                app: ehr_web
                query: "notes[?subject_type=='order' && subject_id=='{order}' && text=='{COMMENT}']"
                op: count
                min: 1
        """))
