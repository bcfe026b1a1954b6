"""Public code sets (ICD-10-CM, CPT/HCPCS, CARC/RARC) as tables an app declares on its own Base.

Every app that shows or validates codes holds a copy of the world's code sets. The copies
are declared here once, so that each app's database has the same table names, columns
and rows, and a task check can query `diagnosis_codes`, `procedure_codes` or
`adjustment_codes` the same way whatever app it reads.

The tables are not on `KitBase`: an app gets only those it asks for (the fax app holds
none), by calling `declare_code_sets` on its own declarative base in its models module::

    DiagnosisCode, ProcedureCode, AdjustmentCode = CODE_SET_MODELS = declare_code_sets(Base)

and fills them from the world while seeding its template with
`seed_code_sets(session, world, CODE_SET_MODELS)`.
"""
from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

DIAGNOSIS_CODES = "diagnosis_codes"
PROCEDURE_CODES = "procedure_codes"
ADJUSTMENT_CODES = "adjustment_codes"
CODE_SET_TABLES = (DIAGNOSIS_CODES, PROCEDURE_CODES, ADJUSTMENT_CODES)

# The values of `adjustment_codes.code_set`.
CARC = "CARC"
RARC = "RARC"


class DiagnosisCodeColumns:
    """An ICD-10-CM diagnosis code."""

    __tablename__ = DIAGNOSIS_CODES

    code: Mapped[str] = mapped_column(String(10), primary_key=True)
    description: Mapped[str] = mapped_column(String(256))


class ProcedureCodeColumns:
    """A CPT or HCPCS procedure code, with a short description written for this project."""

    __tablename__ = PROCEDURE_CODES

    code: Mapped[str] = mapped_column(String(10), primary_key=True)
    system: Mapped[str] = mapped_column(String(8))  # "CPT" or "HCPCS"
    category: Mapped[str] = mapped_column(String(32))
    description: Mapped[str] = mapped_column(String(256))


class AdjustmentCodeColumns:
    """A claim adjustment reason code ("CARC") or remittance advice remark code ("RARC")."""

    __tablename__ = ADJUSTMENT_CODES

    # Both lists live in one table, keyed by their list too: the two numberings overlap
    # in principle, and one table lets a check look a code up without knowing its kind.
    code_set: Mapped[str] = mapped_column(String(4), primary_key=True)
    code: Mapped[str] = mapped_column(String(10), primary_key=True)
    description: Mapped[str] = mapped_column(Text)


# Table name -> (class name of the mapped class, the columns it takes from its mixin).
_MIXINS: dict[str, tuple[str, type]] = {
    DIAGNOSIS_CODES: ("DiagnosisCode", DiagnosisCodeColumns),
    PROCEDURE_CODES: ("ProcedureCode", ProcedureCodeColumns),
    ADJUSTMENT_CODES: ("AdjustmentCode", AdjustmentCodeColumns),
}


def declare_code_sets(base: type[DeclarativeBase], tables: Iterable[str] = CODE_SET_TABLES) -> tuple[type, ...]:
    """Mapped classes of the named code-set tables on `base`, in the order asked.

    The classes are named `DiagnosisCode`, `ProcedureCode` and `AdjustmentCode` and
    belong to the module of `base`, as if the app had written them there; each app's
    base has its own registry, so the same names in several apps do not collide.
    """
    classes = []
    for table in tables:
        if table not in _MIXINS:
            raise ValueError(f"unknown code-set table {table!r}; expected one of {CODE_SET_TABLES}")
        name, mixin = _MIXINS[table]
        classes.append(type(name, (mixin, base), {"__module__": base.__module__, "__qualname__": name,
                                                  "__doc__": mixin.__doc__}))
    return tuple(classes)


def code_set_rows(codes) -> dict[str, list[dict]]:
    """The rows of every code-set table, by table name, from the world's `CodeSets`."""
    return {
        DIAGNOSIS_CODES: [{"code": code, "description": description} for code, description in codes.icd10.items()],
        PROCEDURE_CODES: [{"code": p.code, "system": p.system, "category": p.category, "description": p.description}
                          for p in codes.procedures.values()],
        ADJUSTMENT_CODES: [{"code_set": code_set, "code": code, "description": description}
                           for code_set, listing in ((CARC, codes.carc), (RARC, codes.rarc))
                           for code, description in listing.items()],
    }


def seed_code_sets(session: Session, world, tables: Iterable) -> None:
    """Fill the given code-set tables (mapped classes from `declare_code_sets`) from `world.codes`."""
    rows = code_set_rows(world.codes)
    for model in tables:
        table = model.__table__
        # One bulk insert per table: the code sets are the largest reference lists, and
        # nothing while seeding needs them as ORM objects.
        session.execute(table.insert(), rows[table.name])
