"""The closed vocabulary of skills: the procedures a task exercises (a task's `skills:`).

A template names the skills every case of it exercises and a case row may add the ones
its case brings in (see tasks/README.md); `admindesk tasks list SEL` filters on them
(`skill=cob`) and `admindesk tasks stats` counts them. docs/authoring.md lists the same
vocabulary for authors; a skill outside it is refused when a task file loads.
"""
from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator

SKILLS: dict[str, str] = {
    # Prior authorization: getting a service authorized (or proving it needs no authorization).
    "portal_submission": "submit a prior-auth, precertification or DME request in a payer portal's form",
    "fax_precert": "request authorization by fax: the payer's form and the chart document to its PA line",
    "auth_lookup": "look up whether a service needs authorization and record 'no auth required'",
    "request_on_file": "find the request already at the payer and record it instead of submitting again",
    "pended_documents": "answer a payer's request for information by sending the records to the pended case",
    "determination_posting": ("post a payer's faxed determination: file the fax to the patient it names and record "
                              "on the order what it approves (code, units, dates), routing an approval of less "
                              "than the order asks to the ordering provider"),
    "peer_to_peer": "schedule or record a peer-to-peer review of a denied or pending request",
    "retro_auth": "request authorization after the service, within the payer's retro window",
    "expedited_review": ("file a prior authorization for expedited or standard review: the treating physician's "
                         "documented clinical urgency, attested by that physician, decides, not the order's "
                         "priority or the patient's plans"),
    "extension": "extend an approved authorization's dates",
    "units_increase": "ask for more units than an approved authorization grants",
    "dos_change": "move an approved authorization to a new date of service",
    "continued_coverage": "request continued coverage when an approved course runs out",
    "site_of_care": "move a service to the site of care the payer's policy requires",
    "home_sleep_first": "work an in-lab sleep study under a policy that wants a home sleep test first",
    "genetic_testing": "request a germline genetic test on the payer's criteria: counseling, history, the performing lab",
    "therapy_limit": "work therapy visits ordered past the plan's visit limit: the payer's count and the limit's type "
                     "decide between requesting the plan of care's further visits and filing nothing",
    "conservative_care": "request elective surgery on the payer's conservative-care criteria, weeks counted from the therapy record",
    "pain_procedure": "request a repeat spinal injection on the payer's response criteria: relief and weeks from the follow-up "
                      "note, sessions counted per region in 12 months",
    "step_therapy": "request a non-preferred drug on the payer's step-therapy policy: each preferred agent's dates and why it "
                    "was stopped from the medication history and the notes, or route the order back when a step is missing",
    "reauthorization": "renew a specialty drug whose approval is ending on the payer's continuation criteria: the "
                       "response measured against the pre-treatment baseline, its date and the renewal window, or "
                       "route the renewal back when the response is not documented",
    "concurrent_review": "send clinical updates for a stay or course under concurrent review",
    "coverage_update": ("work an order whose coverage on file ended before the service: the patient's new card, "
                        "confirmed at its payer, is registered, the old coverage ended and the order billed to the "
                        "new one, whose payer then decides between a request and 'no auth required'"),
    "preservice_appeal": "appeal a denied authorization before the service",
    "referral": "obtain or record a referral the plan requires",
    "network_exception": ("work an HMO/EPO service ordered out of network: the payer's directory against its access "
                          "standard decides between a request with a network exception and routing the order to "
                          "the in-network facility that meets it"),
    # Denials and appeals: claims the payer denied, underpaid or takes back.
    "level1_appeal": "first-level appeal or reconsideration of a denied claim, with its proof",
    "fax_appeal": "file an appeal on paper: the letter and records to the payer's appeals fax with a cover sheet",
    "level2_appeal": "second-level appeal after a first level that did not overturn in full",
    "appeal_follow_up": "follow up an appeal already at the payer: its status or decision recorded, nothing filed twice",
    "external_review": "request independent external review after the payer's appeals",
    "underpayment_appeal": "appeal a claim paid below the contracted amount",
    "recoupment": "answer a payer's overpayment recoupment of a paid claim",
    "records_request": "send the medical records a payer asked for to adjudicate a claim",
    "corrected_claim": "fix a clerical denial with a corrected claim (frequency 7) instead of an appeal",
    "duplicate_denial": "resolve a duplicate-claim denial by confirming the original claim's payment",
    "ncci_modifier": "fix an NCCI edit denial with the right modifier",
    "diagnosis_coding": "work a test denied for its diagnosis (CO-167 or CO-11): the payer's covered-diagnosis list "
                        "against the encounter note of the date of service decides between a corrected claim with the "
                        "covered condition the physician documented and a write-off; nothing from the problem list",
    "ndc_billing": "fix a drug line denied for its NDC (CO-16/M119): the NDC of the product given, in 11 digits with "
                   "its unit and quantity, on a corrected claim",
    "coverage_ended": "work a denial for coverage ended (CO-27): the payer's eligibility against the date of service "
                      "decides between billing the coverage in force, the patient, or a reconsideration",
    "benefit_limit": "work a visit-limit denial (CARC 119): the payer's count against the practice's visits decides "
                     "between billing the member and asking the payer to reprocess",
    "member_waiver": "work a denial of a service the plan does not cover (CARC 50, 96 or 204): the payer's advance "
                     "member waiver rule against the signed forms in the chart decides between billing the member "
                     "and a write-off",
    "timely_filing": "work a timely filing denial (CO-29): the payer's filing limit against the claim's clearinghouse "
                     "history decides between a reconsideration with the acceptance report and a write-off",
    "claim_follow_up": "follow up a claim the payer has not answered: its claim status decides between resubmitting "
                       "the original claim within the filing limit and tracing the payment for posting",
    "provider_enrollment": "work a rendering-provider enrollment denial (CARC B7): when the payer logged the "
                           "clinician's application, against the date of service, decides between a reconsideration "
                           "with the welcome letter and a hand-off to credentialing",
    "missing_auth_denial": "work an authorization-absent denial (CO-197) when an authorization was obtained: what it "
                           "covers (code, units, dates) against the claim decides between a corrected claim or "
                           "reconsideration carrying it and a write-off",
    "member_id_correction": "work a denial for a patient the payer cannot identify as its member (CARC 31): the "
                            "payer's eligibility by name and date of birth gives the member it holds; correct the "
                            "registered coverage (member id, subscriber, relationship, effective date) and resubmit "
                            "the claim as an original claim within the filing limit",
    "cob": "coordination of benefits: work the secondary coverage or carry the primary's payment",
    "other_payer": "bill a claim the payer denied as not its responsibility (CO-109) to the payer responsible",
    # DME and the work queues.
    "supplier_packet": "fax a DME order packet to a contracted supplier and record its confirmation",
    "home_oxygen": "qualify home oxygen on its test (value, date, who performed it) and the Group II findings",
    "mobility_bed": "qualify a hospital bed or wheelchair on the face-to-face note and the written order's rules",
    "equipment_replacement": "replace DME the patient already has: its useful lifetime counted from delivery, the incident documented, modifier RA",
    "inbasket_routing": "route an in-basket message or work item to the team that must act on it",
    "handoff": "documented hand-off: re-assign a work item to the team that owns it, with a note of the facts it needs",
    # Any workflow: the right work is to file nothing.
    "stop_and_document": "recognise that nothing may be filed, file nothing, and write down why",
}


def _known_skill(name: str) -> str:
    if name not in SKILLS:
        raise ValueError(f"unknown skill {name!r}; the skills are a closed vocabulary (docs/authoring.md): "
                         f"{', '.join(SKILLS)}")
    return name


def _no_repeats(names: list[str]) -> list[str]:
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"skill {', '.join(repeated)} is listed twice")
    return names


Skill = Annotated[str, AfterValidator(_known_skill)]
# A task's (or a case row's) skills: known ones, each once.
SkillList = Annotated[list[Skill], AfterValidator(_no_repeats)]
