"""`admindesk world ids [KIND ...] [--json]`: the ids a case row and a policy file name things
by (payers, plans, facilities, providers, suppliers), with what each is, from the world
every app is seeded with."""
from __future__ import annotations

import json
from typing import Any, Callable

import click

# Kind -> (the world's list of it, one row per item: id first, then what it is).
KINDS: dict[str, Callable[[Any], list[dict[str, str]]]] = {
    "payers": lambda world: [{"id": p.id, "name": p.name, "portal": p.portal.upper(), "payer_code": p.payer_code}
                             for p in world.payers],
    "plans": lambda world: [{"id": p.id, "name": p.name, "payer": p.payer_id, "product": p.product}
                            for p in world.plans],
    "facilities": lambda world: [{"id": f.id, "name": f.name, "place_of_service": f.place_of_service}
                                 for f in world.facilities],
    # A case names its ordering provider by NPI or by specialty.
    "providers": lambda world: [{"id": p.npi, "name": f"{p.first_name} {p.last_name}, {p.credentials}",
                                 "specialty": p.specialty, "facility": p.facility_id} for p in world.providers],
    "suppliers": lambda world: [{"id": s.id, "name": s.name, "categories": ", ".join(s.categories)}
                                for s in world.suppliers],
}


@click.group("world")
def world() -> None:
    """What the synthetic world every app is seeded with holds."""


@world.command("ids")
@click.argument("kinds", nargs=-1, type=click.Choice(list(KINDS)))
@click.option("--json", "as_json", is_flag=True, help="Print {kind: [rows]} as JSON.")
def ids(kinds: tuple[str, ...], as_json: bool) -> None:
    """List payers, plans, facilities, providers and suppliers with their ids (KINDS: only those)."""
    from admindesk.envs.world import build_world

    the_world = build_world()
    listed = {kind: KINDS[kind](the_world) for kind in (kinds or KINDS)}
    if as_json:
        click.echo(json.dumps(listed, indent=1))
        return
    for kind, rows in listed.items():
        click.echo(f"{kind} ({len(rows)})")
        width = max((len(row["id"]) for row in rows), default=0)
        for row in rows:
            rest = "  ".join(value if name == "name" else f"{name.replace('_', ' ')} {value}"
                             for name, value in row.items() if name != "id" and value)
            click.echo(f"  {row['id']:<{width}}  {rest}")
