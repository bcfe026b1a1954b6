"""A minimal app on the kit, so the kit's behaviour is tested apart from the real apps."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from sqlalchemy import Integer, String, select
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.factory import AppConfig, AppSpec, create_app as kit_create_app
from admindesk.envs.common.state.seeding import seed_staff


class Base(DeclarativeBase):
    pass


class Widget(Base):
    __tablename__ = "widgets"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    created: Mapped[str] = mapped_column(String(32))


@dataclass(frozen=True)
class DemoAccount:
    username: str
    password: str
    display_name: str
    role: str


views = Blueprint("widgets", __name__)


def db():
    return current_app.extensions["admindesk"].db.request_session()


@views.get("/")
def index():
    describe(record_type="widget_list")
    return render_template("widgets.html", widgets=db().scalars(select(Widget).order_by(Widget.id)).all())


@views.post("/widgets")
def add_widget():
    name = request.form.get("name", "").strip()
    if not name or len(name) > 40:
        return render_template("widgets.html", error="Name is required (at most 40 characters).",
                               widgets=db().scalars(select(Widget)).all()), 422
    widget = Widget(name=name, created=clock.now().isoformat())
    db().add(widget)
    db().commit()
    describe(action="create_widget", record_type="widget", record_id=str(widget.id))
    return redirect(url_for("widgets.index"))


@views.post("/widgets/back")
def back_to():
    """Sends the browser where the form says, as views with a `next` field do."""
    return redirect(request.form.get("next") or url_for("widgets.index"), code=303)


@views.get("/widgets/<int:widget_id>")
def widget(widget_id: int):
    found = db().get(Widget, widget_id)
    if found is None:
        abort(404)
    return found.name


def seed(session, _world):
    seed_staff(session, [DemoAccount("coordinator", "admindesk", "Casey Coordinator", "coordinator")])
    session.add_all([Widget(name=f"seeded-{i}", created="2026-01-01T00:00:00") for i in range(3)])


SPEC = AppSpec(name="kit_demo", title="Kit Demo", package_dir=Path(__file__).resolve().parent,
               base=Base, blueprints=(views,), seed=seed, home_endpoint="widgets.index")


def create_app(config: AppConfig):
    return kit_create_app(SPEC, config)
