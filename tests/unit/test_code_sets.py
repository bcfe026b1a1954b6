"""Kit code sets: declared on the app's own base, only the tables asked for, seeded from the world."""
from __future__ import annotations

import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.orm import DeclarativeBase, Session

from admindesk.envs.common.code_sets import (
    ADJUSTMENT_CODES,
    CODE_SET_TABLES,
    DIAGNOSIS_CODES,
    declare_code_sets,
    seed_code_sets,
)
from admindesk.envs.common.state.database import KitBase
from admindesk.envs.world.models import CodeSets, Procedure


class FakeWorld:
    codes = CodeSets(icd10={"M54.16": "Radiculopathy, lumbar region"},
                     procedures={"72148": Procedure("72148", "CPT", "MRI lumbar spine without contrast", "Imaging")},
                     carc={"50": "Not medically necessary"}, rarc={"N130": "Consult plan benefit documents"})


def test_only_the_tables_asked_for_are_declared_on_the_given_base():
    class Base(DeclarativeBase):
        pass

    (adjustment,) = declare_code_sets(Base, [ADJUSTMENT_CODES])
    assert adjustment.__name__ == "AdjustmentCode" and set(Base.metadata.tables) == {ADJUSTMENT_CODES}
    assert not set(CODE_SET_TABLES) & set(KitBase.metadata.tables)


def test_an_unknown_table_is_refused():
    class Base(DeclarativeBase):
        pass

    with pytest.raises(ValueError, match="icd10_codes"):
        declare_code_sets(Base, ["icd10_codes"])


def test_seeding_fills_each_table_from_the_world():
    class Base(DeclarativeBase):
        pass

    models = diagnosis, procedure, adjustment = declare_code_sets(Base)
    engine = create_engine("sqlite://")
    Base.metadata.create_all(engine)
    with Session(engine) as session:
        seed_code_sets(session, FakeWorld, models)
        assert session.get(diagnosis, "M54.16").description == "Radiculopathy, lumbar region"
        row = session.get(procedure, "72148")
        assert (row.system, row.category) == ("CPT", "Imaging")
        assert session.execute(select(adjustment.code_set, adjustment.code).order_by(adjustment.code_set)).all() \
            == [("CARC", "50"), ("RARC", "N130")]
    assert diagnosis.__table__.name == DIAGNOSIS_CODES
