"""Jinja filters shared by the apps (each app picks its own date format)."""
from __future__ import annotations

from datetime import date, datetime

from flask import Flask

from admindesk.envs.common import clock


def register_filters(app: Flask, date_format: str) -> None:
    def fmt_date(value: date | datetime | None) -> str:
        return value.strftime(date_format) if value else ""

    def fmt_datetime(value: datetime | None) -> str:
        return value.strftime(f"{date_format} %H:%M") if value else ""

    def money(value: float | None) -> str:
        return "" if value is None else f"${value:,.2f}"

    def age(dob: date | None, on: date | None = None) -> str:
        if dob is None:
            return ""
        on = on or clock.today()
        return str(on.year - dob.year - ((on.month, on.day) < (dob.month, dob.day)))

    app.jinja_env.filters.update(fmt_date=fmt_date, fmt_datetime=fmt_datetime, money=money, age=age)
