"""The application factory every app uses: config, database, auth, CSRF, audit, bench API."""
from __future__ import annotations

import itertools
import os
import secrets
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from flask import Blueprint, Flask, g, render_template, request
from flask_wtf.csrf import CSRFError, CSRFProtect
from jinja2 import ChoiceLoader, FileSystemLoader
from sqlalchemy.orm import DeclarativeBase, Session

from admindesk.envs.common import clock
from admindesk.envs.common.api_access import oauth
from admindesk.envs.common.audit import STATIC_ENDPOINTS, record_request
from admindesk.envs.common.auth import auth, require_login
from admindesk.envs.common.bench import bench
from admindesk.envs.common.documents.uploads import MAX_UPLOAD_BYTES
from admindesk.envs.common.fax_line import FaxReceiver
from admindesk.envs.common.feedback import post_feedback_state
from admindesk.envs.common.filters import register_filters
from admindesk.envs.common.messages import check_messages, message
from admindesk.envs.common.request_guards import (
    BoundedIntConverter,
    DoubleSubmitGuard,
    guard_bench_paths,
    keep_browsers_off_apis,
    keep_redirects_out_of_bench,
    refuse_overlong_fields,
)
from admindesk.envs.common.state import seeding
from admindesk.envs.common.state.database import (
    Checkpoint,
    Database,
    KitBase,
    UnknownCheckpoint,
    make_engine,
    remove_database_file,
)
from admindesk.envs.common.state.kit_models import BenchState
from admindesk.envs.common.state.snapshot import build_snapshot, dumps
from admindesk.envs.common.state.task_templates import TaskTemplates

COMMON_DIR = Path(__file__).resolve().parent
_KIT_SERIALS = itertools.count(1)
_SCRATCH_SERIALS = itertools.count(1)
# Initial snapshots kept per process (the EHR's is ~5 MB), shared by its lanes: the tasks in
# flight repeat, and a snapshot costs the app ~200 ms.
INITIAL_SNAPSHOTS = 4
_INITIAL_SNAPSHOTS: dict[tuple[Path, datetime], bytes] = {}
_INITIAL_LOCK = threading.Lock()
# Checkpoints a kit keeps; past it the oldest is dropped. A task check keeps one per phase
# of the reference's work (under ten) and uses them before the next task's; the bound keeps a
# long run from filling the disk with them (an EHR checkpoint is ~4.5 MB: ~150 MB per lane).
MAX_CHECKPOINTS = 32
# Static assets only change with the code; pages and files carry patient data and never cache.
STATIC_MAX_AGE_SECONDS = 3600


def forbid_caching_of_pages(response):
    """after_request hook: like a real EHR, no page or document is kept in the browser cache."""
    if request.endpoint not in STATIC_ENDPOINTS:
        response.headers["Cache-Control"] = "no-store"
    return response


@dataclass(frozen=True)
class AppSpec:
    """What an app brings to the kit: its tables, views, seed and look."""

    name: str
    title: str
    package_dir: Path
    base: type[DeclarativeBase]
    blueprints: tuple[Blueprint, ...]
    seed: seeding.SeedFunction
    home_endpoint: str
    date_format: str = "%m/%d/%Y"
    # The app's own wording of the kit's messages (see messages.DEFAULT_MESSAGES).
    messages: Mapping[str, str] = field(default_factory=dict)
    # Reads a fax dialed to one of the app's numbers (see fax_line); None: it owns no fax line.
    fax_receiver: FaxReceiver | None = None
    # APIs a tool-calling agent uses instead of the screens (FHIR, PAS): named `api_*`,
    # authenticated by bearer token (api_access), never by the login session.
    api_blueprints: tuple[Blueprint, ...] = ()

    def __post_init__(self) -> None:
        check_messages(dict(self.messages))


@dataclass
class AppConfig:
    """Where an app keeps its files and which secret guards its bench API."""

    data_dir: Path
    token: str = ""
    # The world's DEFAULT_SEED, not imported: importing the world (Faker) slows app start.
    world_seed: int = 20261129
    tasks_dir: Path | None = seeding.DEFAULT_TASKS_DIR
    # Templates are keyed by content hash, so processes and runs may share one cache.
    cache_dir: Path | None = None
    secret_key: str = field(default_factory=lambda: secrets.token_hex(32))
    testing: bool = False
    # The other apps of the run, name -> base URL: where a transmitted fax is offered.
    peers: dict[str, str] = field(default_factory=dict)


class Kit:
    """Per-app runtime: the database, its template, the reset generation and checkpoints."""

    def __init__(self, spec: AppSpec, config: AppConfig):
        self.spec, self.config = spec, config
        self.db = Database((KitBase.metadata, spec.base.metadata))
        # Several apps (tests build many) may share one data folder within one process.
        self._live_name = f"{spec.name}-{os.getpid()}-{next(_KIT_SERIALS)}"
        self._reset_lock = threading.Lock()
        # A restore may go back to an older generation; a reset still goes above every
        # generation ever issued, or it would make an old episode's logins valid again.
        self._highest_generation = 0
        self._checkpoints: dict[str, Checkpoint] = {}  # oldest first
        self.template = self._ensure_template()
        self._last_reset: tuple[Path, datetime] = (self.template, clock.DEFAULT_NOW)
        self.task_templates = TaskTemplates(spec.name, spec.seed, self.db, self.template, config.tasks_dir,
                                            config.world_seed)

    def _ensure_template(self) -> Path:
        digest = seeding.content_hash(self.spec.package_dir, self.config.world_seed)
        cache_dir = self.config.cache_dir or self.config.data_dir / "templates"
        target = cache_dir / f"{self.spec.name}-{digest}.sqlite"

        def populate(session: Session) -> None:
            from admindesk.envs.world import build_world  # heavy: only when building

            world = build_world(seed=self.config.world_seed)
            seeding.seed_staff(session, world.staff_for(self.spec.name))
            self.spec.seed(session, world)

        return seeding.build_template(self.db, target, populate)

    @property
    def generation(self) -> int:
        """How many resets this app has had; a login belongs to one generation."""
        return self.db.generation

    def reset(self, now: datetime = clock.DEFAULT_NOW, task: str | None = None) -> None:
        """Fresh copy of the template (the world's, or task `task`'s: the world + its case),
        clock frozen at `now`; old sessions become void.

        Requests in flight finish on the previous copy (see `Database`), so nothing they
        write reaches the new episode. An unknown task raises UnknownTask, a bad one
        SeedError, before anything changes.
        """
        template = self.template if task is None else self.task_templates.template_for(task)
        with self._reset_lock:
            generation = self._highest_generation + 1
            path = self._fresh_copy(template, now, self._live_name, generation)
            self.db.swap(path, generation)
            self._highest_generation = generation
            self._last_reset = (template, now)

    def checkpoint(self) -> str:
        """Save the live database as it is now; returns the id `restore` takes.

        What requests committed until now is in it. The kit keeps its last MAX_CHECKPOINTS,
        in memory: an app process that restarts holds none.
        """
        checkpoint_id = secrets.token_hex(8)
        path = self.config.data_dir / "checkpoints" / f"{self._live_name}-{checkpoint_id}.sqlite"
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._reset_lock:  # the live database stays live (and its generation its own) meanwhile
            live = self.db.acquire()
            try:
                live.backup(path)
            finally:
                self.db.release(live)
            self._checkpoints[checkpoint_id] = Checkpoint(path, live.generation)
            while len(self._checkpoints) > MAX_CHECKPOINTS:
                remove_database_file(self._checkpoints.pop(next(iter(self._checkpoints))).path)
        return checkpoint_id

    def restore(self, checkpoint_id: str) -> None:
        """Make a fresh copy of checkpoint `checkpoint_id` live, with the generation it had:
        logins of that moment are valid again, those of the generation it replaces void.

        Like a reset, requests in flight finish on the previous copy; the checkpoint stays,
        to be restored again. What `initial_snapshot` serves is still the last reset's.
        """
        with self._reset_lock:
            checkpoint = self._checkpoints.get(checkpoint_id)
            if checkpoint is None:
                raise UnknownCheckpoint(f"no checkpoint {checkpoint_id!r} here: never taken by this app "
                                        f"process, or dropped (it keeps the last {MAX_CHECKPOINTS})")
            # A name of its own: the checkpoint's generation may be that of the live file, or
            # of one a request still leases (see seeding.copy_template).
            owner = f"{self._live_name}-restored{next(_SCRATCH_SERIALS)}"
            path = seeding.copy_template(checkpoint.path, self.config.data_dir / "live", owner,
                                         checkpoint.generation)
            self.db.swap(path, checkpoint.generation)

    def _fresh_copy(self, template: Path, now: datetime, owner: str, generation: int) -> Path:
        """A working copy of `template` with the clock frozen at `now`: what a reset serves."""
        path = seeding.copy_template(template, self.config.data_dir / "live", owner, generation)
        engine = make_engine(path)
        with Session(bind=engine) as session:
            session.merge(BenchState(key=clock.CLOCK_KEY, value=now.isoformat()))
            session.commit()
        engine.dispose()
        return path

    def initial_snapshot(self) -> bytes:
        """The snapshot bytes of the state the last reset made, whatever requests have done
        since: a reset is deterministic, so a scratch copy made the same way has those bytes.
        The harness fetches it while the browser opens the start page (whose requests write to
        the live copy). Kept per (template, now) for the process's lanes (INITIAL_SNAPSHOTS)."""
        template, now = self._last_reset
        key = (template, now)
        with _INITIAL_LOCK:
            if key in _INITIAL_SNAPSHOTS:
                _INITIAL_SNAPSHOTS[key] = _INITIAL_SNAPSHOTS.pop(key)  # most recent last
                return _INITIAL_SNAPSHOTS[key]
        path = self._fresh_copy(template, now, f"{self._live_name}-initial", next(_SCRATCH_SERIALS))
        engine = make_engine(path)
        try:
            with Session(bind=engine) as session:
                data = dumps(build_snapshot(self.db, session, self.spec.name, now))
        finally:
            engine.dispose()
            remove_database_file(path)
        with _INITIAL_LOCK:
            _INITIAL_SNAPSHOTS[key] = data
            while len(_INITIAL_SNAPSHOTS) > INITIAL_SNAPSHOTS:
                _INITIAL_SNAPSHOTS.pop(next(iter(_INITIAL_SNAPSHOTS)))
        return data


def create_app(spec: AppSpec, config: AppConfig) -> Flask:
    """Build one app: kit blueprints + the app's own, on a fresh copy of its template."""
    app = Flask(spec.name, root_path=str(spec.package_dir), static_url_path="/static")
    app.config.update(SECRET_KEY=config.secret_key, MAX_CONTENT_LENGTH=MAX_UPLOAD_BYTES + 64 * 1024,
                      SEND_FILE_MAX_AGE_DEFAULT=STATIC_MAX_AGE_SECONDS,
                      WTF_CSRF_TIME_LIMIT=None, TESTING=config.testing,
                      SESSION_COOKIE_NAME=f"{spec.name}_session", SESSION_COOKIE_SAMESITE="Lax")
    app.jinja_loader = ChoiceLoader([FileSystemLoader(str(spec.package_dir / "templates")),
                                     FileSystemLoader(str(COMMON_DIR / "templates"))])
    app.config["MAX_FORM_MEMORY_SIZE"] = MAX_UPLOAD_BYTES  # long text reaches the field check
    app.url_map.converters["int"] = BoundedIntConverter
    kit = Kit(spec, config)
    app.extensions["admindesk"] = kit
    kit.reset()

    # Order matters: bench spellings are 404 before anything (CSRF, login) can answer;
    # then the request is pinned, so the login check, the view and its audit row share one
    # database.
    app.before_request(guard_bench_paths)
    app.before_request(keep_browsers_off_apis)
    app.before_request(kit.db.pin_request)
    csrf = CSRFProtect(app)
    csrf.exempt(bench)
    app.register_blueprint(bench)
    app.register_blueprint(auth)
    app.register_blueprint(Blueprint("common", __name__, static_folder="static",
                                     static_url_path="/_common"))
    for blueprint in spec.blueprints:
        app.register_blueprint(blueprint)
    if spec.api_blueprints:
        for blueprint in (oauth, *spec.api_blueprints):
            csrf.exempt(blueprint)
            app.register_blueprint(blueprint)
    # Browsers ask for /favicon.ico on every page; an app that declares no icon answers
    # "none" here instead of through the login guard and the audit trail.
    app.add_url_rule("/favicon.ico", "favicon", lambda: ("", 204))
    double_submits = DoubleSubmitGuard()
    app.before_request(require_login)
    app.before_request(refuse_overlong_fields)
    app.before_request(double_submits.before_request)
    app.after_request(double_submits.after_request)
    app.after_request(record_request)
    app.after_request(forbid_caching_of_pages)
    app.after_request(keep_redirects_out_of_bench)
    app.teardown_appcontext(kit.db.end_request)
    register_filters(app, spec.date_format)
    # A global, not a context value: the layouts' imported macros see globals only.
    app.jinja_env.globals["post_feedback_state"] = post_feedback_state

    @app.context_processor
    def kit_globals():
        return {"app_title": spec.title, "current_user": g.get("user"), "today": clock.today()}

    @app.errorhandler(CSRFError)
    def csrf_error(error):
        return render_template("error.html", code=400, title=message("form_expired_title"),
                               message=message("form_expired")), 400

    @app.errorhandler(413)
    def too_large(_error):
        # Only the headers: reading the body again would raise the same error.
        kind = "file_too_large" if request.mimetype == "multipart/form-data" else "text_too_long"
        return render_template("error.html", code=413, title=message(f"{kind}_title"), message=message(kind)), 413

    @app.errorhandler(404)
    def not_found(_error):
        return render_template("error.html", code=404, title=message("not_found_title"),
                               message=message("not_found")), 404

    return app
