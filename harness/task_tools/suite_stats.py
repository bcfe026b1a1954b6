"""The suite's shape: `admindesk tasks stats`.

How many distinct templates there are and how many tasks the largest has, how many tasks
exercise each skill (every skill of the vocabulary, so an unused one shows as 0), and what
prior authorization asks for: the share of its tasks whose service is an MRI and the
service categories across it. A task's service is its case's order `svc` (the prior-auth
convention), else its first order; its category is the code set's (envs/world/data),
with MRI counted apart from the rest of imaging and the code set's broad "procedure"
told apart by the CPT section it is in (cardiology, pain procedures, surgery...).
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from admindesk.envs.world.codes import load_codes
from admindesk.schema.skills import SKILLS
from admindesk.schema.task_model import Task

# CPT's magnetic resonance code ranges (MRI and MR angiography), inclusive: head and neck,
# chest, spine, pelvis, upper and lower extremity, abdomen, heart, breast.
MRI_CPT_RANGES = ((70336, 70336), (70540, 70559), (71550, 71555), (72141, 72159), (72195, 72198),
                  (73218, 73225), (73718, 73725), (74181, 74185), (75557, 75565), (77046, 77049))
MRI = "mri"
NO_SERVICE = "no service"
# CPT sections of the code set's "procedure" codes, inclusive; the first range that holds a
# code names its area (pain procedures sit inside the nervous-system surgery range).
PROCEDURE_AREAS = (((62320, 62327), "pain procedure"), ((64400, 64530), "pain procedure"),
                   ((64479, 64495), "pain procedure"), ((64600, 64681), "pain procedure"),
                   ((33010, 37799), "cardiology"), ((92920, 93799), "cardiology"),
                   ((10004, 69990), "surgery"), ((95700, 96020), "neurodiagnostics"),
                   ((96360, 96549), "drug administration"))
# Imaging of the heart (cardiac CT, nuclear cardiology) is cardiology's work.
CARDIAC_IMAGING = ((75571, 75574), (78414, 78499))


def is_mri(code: str) -> bool:
    """Whether `code` is a CPT magnetic resonance code (MRI or MRA)."""
    return code.isdigit() and any(low <= int(code) <= high for low, high in MRI_CPT_RANGES)


def service_code(task: Task) -> str | None:
    """The code of the service the task is about: the order `svc`, else the case's first order."""
    orders = task.case.orders if task.case is not None else []
    chosen = next((order for order in orders if order.key == "svc"), orders[0] if orders else None)
    return chosen.code if chosen is not None else None


def service_category(code: str | None) -> str:
    """`mri` for an MRI code, a procedure's clinical area, else the code set's category (imaging,
    sleep, dme, drug, ...)."""
    if code is None:
        return NO_SERVICE
    if is_mri(code):
        return MRI
    procedure = load_codes().procedures.get(code)
    if procedure is None:
        return f"not in the code set ({code})"
    if procedure.category == "imaging" and any(low <= int(code) <= high for low, high in CARDIAC_IMAGING):
        return "cardiology"
    if procedure.category == "procedure" and code.isdigit():
        return next((area for (low, high), area in PROCEDURE_AREAS if low <= int(code) <= high), "procedure")
    return procedure.category


def suite_stats(tasks: list[Task]) -> dict[str, Any]:
    """The suite-shape figures of `tasks` (see the module's docstring)."""
    per_template = Counter(task.template or "(none)" for task in tasks)
    per_skill = Counter({skill: 0 for skill in SKILLS})
    per_skill.update(skill for task in tasks for skill in task.skills)
    largest = max(per_template.values(), default=0)
    prior_auth = [task for task in tasks if task.workflow == "prior_auth"]
    categories = Counter(service_category(service_code(task)) for task in prior_auth)
    return {
        "tasks": len(tasks),
        "templates": len(per_template),
        "tasks_per_template": dict(sorted(per_template.items())),
        "max_tasks_per_template": largest,
        "largest_templates": sorted(name for name, count in per_template.items() if count == largest),
        "tasks_per_skill": dict(per_skill),
        "unused_skills": [skill for skill, count in per_skill.items() if count == 0],
        "prior_auth_tasks": len(prior_auth),
        "prior_auth_mri_tasks": categories[MRI],
        "prior_auth_mri_share": round(categories[MRI] / len(prior_auth), 4) if prior_auth else 0.0,
        "prior_auth_categories": dict(sorted(categories.items(), key=lambda item: (-item[1], item[0]))),
    }


def format_stats(stats: dict[str, Any]) -> list[str]:
    """The figures as printed lines."""
    lines = [(f"{stats['tasks']} task(s), {stats['templates']} template(s); the largest template has "
              f"{stats['max_tasks_per_template']} task(s) ({', '.join(stats['largest_templates'])})"),
             "tasks per template:"]
    lines += [f"  {name:<36} {count:>4}" for name, count in
              sorted(stats["tasks_per_template"].items(), key=lambda item: (-item[1], item[0]))]
    lines.append("tasks per skill:")
    lines += [f"  {skill:<36} {count:>4}" for skill, count in stats["tasks_per_skill"].items()]
    lines.append(f"prior auth: {stats['prior_auth_tasks']} task(s), MRI {stats['prior_auth_mri_tasks']} "
                 f"({stats['prior_auth_mri_share']:.1%}), {len(stats['prior_auth_categories'])} service "
                 f"categories:")
    lines += [f"  {category:<36} {count:>4}" for category, count in stats["prior_auth_categories"].items()]
    return lines
