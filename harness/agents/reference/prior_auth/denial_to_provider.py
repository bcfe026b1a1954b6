"""Reference solution of template prior_auth/denial_to_provider: the order's request is at
portal A and the payer denied it, with no word from the ordering physician. Read the case
number the EHR holds, open the case (decision, reason, date), read the payer's peer-to-peer
window in its announcements, record the denial on the order, close the item as Denied and
send the ordering physician a staff message with the case, the reason and the window's last
day (or that it has closed), for them to decide. Nothing is filed.
"""
from __future__ import annotations

import re
from datetime import timedelta

from admindesk.harness.agents.reference import ehr_steps, portal_a
from admindesk.harness.agents.reference.portal_a import payer_name
from admindesk.harness.agents.reference.prior_auth.request_on_file import open_order_reference
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

P2P_WINDOW = re.compile(r"peer-to-peer within (\d+) days")


def read_denial(work: Work, payer_id: str) -> dict:
    """The case the order's reference names (it must be Denied), its decision date, and the
    payer's peer-to-peer window counted from it."""
    decision = portal_a.open_case(work, work.need("payer_reference"))
    if decision["status"] != "Denied":
        raise ScriptFailed(f"the request on file is not a denial: {decision}")
    decided = parse_us_date(work.actor.fact("Decided").split()[0])
    window = P2P_WINDOW.search(portal_a.payer_news(work, payer_id, "Peer-to-peer"))
    if window is None:
        raise ScriptFailed("the payer's announcements state no peer-to-peer window")
    last_day = decided + timedelta(days=int(window.group(1)))
    return {**decision, "decided": us_date(decided), "p2p_days": window.group(1), "p2p_last_day": us_date(last_day),
            "p2p_open": last_day >= work.task.now.date()}


def message_text(work: Work, payer: str, denial: dict) -> str:
    n = work.notes
    routes = (f"{payer} takes a peer-to-peer with its medical director within {denial['p2p_days']} days of the denial: "
              f"the last day is {denial['p2p_last_day']}. If you want the call, tell us the times you can take it and "
              f"a callback number and we will request it. The other route is a pre-service appeal with documentation "
              f"that answers the reason above."
              if denial["p2p_open"] else
              f"{payer}'s peer-to-peer window ({denial['p2p_days']} days from the denial) closed on "
              f"{denial['p2p_last_day']}, so a call can no longer be requested. The route left is a pre-service appeal "
              f"with documentation that answers the reason above; if you want to appeal, document it in a note and we "
              f"will file it.")
    return (f"{work.patient_name} (DOB {us_date(work.patient['dob'])}), order {n['order_id']} {n['code']} "
            f"(planned {n['planned']}). {payer} denied the prior authorization on {denial['decided']}, case "
            f"{denial['case_number']}: {denial['reason']} The denial is recorded on the order; nothing has been filed. "
            f"{routes} Please let us know how you want to proceed.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    payer_id = work.case["coverages"][0]["payer"]
    payer = payer_name(payer_id)
    ehr_steps.open_chart(work)
    open_order_reference(work)
    denial: dict = {}
    if work.doing("read_denial"):
        denial = read_denial(work, payer_id)
    if not denial:
        work.finish("Nothing recorded: the payer's decision was not looked up.")
        return
    if work.doing("record_denial"):
        ehr_steps.back_to_order(work)
        ehr_steps.record_authorization(work, status="Denied", payer=payer)
        ehr_steps.set_work_item(work, "Denied")
    if work.doing("route_to_physician"):
        ehr_steps.send_staff_message(
            work, message_type="Peer-to-peer requested" if denial["p2p_open"] else "Clinical question",
            priority="High" if denial["p2p_open"] else "Routine",
            subject=f"Prior auth denied: {work.notes['code']}, case {denial['case_number']}",
            body=message_text(work, payer, denial))
    window = (f"peer-to-peer possible until {denial['p2p_last_day']}" if denial["p2p_open"] else
              f"the peer-to-peer window closed on {denial['p2p_last_day']}; a pre-service appeal is the route left")
    work.finish(f"{payer} denied the request (case {denial['case_number']}, {denial['decided']}): {denial['reason']} "
                f"Recorded the denial on order {work.notes['order_id']}, closed the Prior Auth item as Denied and sent "
                f"the ordering physician a staff message ({window}). Nothing was filed.")
