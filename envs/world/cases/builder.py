"""Turn a task's case into world records, checked against the world it joins.

The result is two views of one small world that shares the background world's
reference data (payers, plans, clinicians, sites, suppliers, code sets) and holds only
the case's records: the chart's view (what the EHR and the fax inbox hold) and the
payer's view (enrollment as the payer has it on file, which may differ). Each app seeds
its view with the same code that seeds the background world, so the apps agree.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from datetime import date, timedelta

from faker import Faker

from admindesk.envs.common.enrollment import PARTICIPATING
from admindesk.envs.common.network_access import SERVICE_CODES, ZIP_CENTROIDS, service_of
from admindesk.envs.common.npi import is_valid_npi
from admindesk.envs.world import WORLD_ANCHOR
from admindesk.envs.world.cases import documents as text
from admindesk.envs.world.cases.adherence import adherence_sections
from admindesk.envs.world.cases.appeals import appeals_on_file, as_filed
from admindesk.envs.world.cases.clearinghouse import report_text, submission
from admindesk.envs.world.cases.duplicates import link_duplicates
from admindesk.envs.world.cases.ids import CaseIds
from admindesk.envs.world.claim_lines import pending_line
from admindesk.envs.world.documents import us_date
from admindesk.envs.world.faxes import FaxInbox
from admindesk.envs.world.identifiers import phone_number
from admindesk.envs.world.models import (
    Accident,
    Adjustment,
    Authorization,
    BenefitAccumulator,
    Claim,
    ClaimLine,
    CountedVisit,
    Coverage,
    Document,
    Encounter,
    Facility,
    InboundFax,
    InpatientNotice,
    Order,
    Patient,
    ProviderEnrollment,
    Recoupment,
    Referral,
    Remittance,
)
from admindesk.envs.world.org import AREA_CODES, CITIES, RECOUPMENT_DISPUTE_DAYS, REFERRAL_VALID_DAYS, STATE
from admindesk.envs.world.review_rules import NOT_MET, review, service_rule
from admindesk.envs.world.world import World
from admindesk.schema.case_model import HOSPITAL_DOCUMENTS, Case

# Document types written during a visit: they share the visit's encounter.
KEYSTONE_PAYER = "PYR-KMH"
UNIDENTIFIED_CARC = "31"  # patient cannot be identified as our insured
# The day a case's outside site joined the networks it names (its directory participation date).
SITE_CONTRACTED_ON = date(2019, 1, 1)
VISIT_DOCUMENTS = frozenset({"progress_note", "face_to_face", "written_order"})


class CaseError(ValueError):
    """A case does not fit the world; the message names the field (`case.orders.0.code`)."""


@dataclass(frozen=True)
class CaseRecords:
    """A case as records: the chart's view and the payer's view of it."""

    chart: World
    payer: World

    def view(self, name: str) -> World:
        """`"chart"` or `"payer"`."""
        return self.payer if name == "payer" else self.chart


def build_case(world: World, task_id: str, case: Case) -> CaseRecords:
    """The case of task `task_id` as records on top of `world` (deterministic)."""
    return _Builder(world, task_id, case).build()


class _Builder:
    def __init__(self, world: World, task_id: str, case: Case):
        self.world, self.case, self.task_id = world, case, task_id
        self.ids = CaseIds(task_id, case.slot)
        self.rng = random.Random(f"case:{task_id}")
        self.fake = Faker("en_US")
        self.fake.seed_instance(self.ids.slot)
        self.codes = world.codes

    # ---- checks against the world ------------------------------------------------------------
    def _fail(self, field: str, message: str):
        raise CaseError(f"case.{field}: {message}")

    def _payer(self, field: str, payer_id: str):
        if payer_id not in {p.id for p in self.world.payers}:
            self._fail(field, f"unknown payer {payer_id!r} (known: {', '.join(p.id for p in self.world.payers)})")
        return self.world.payer(payer_id)

    def _procedure(self, field: str, code: str):
        if code not in self.codes.procedures:
            self._fail(field, f"service code {code!r} is not in the CPT/HCPCS code set")
        return self.codes.procedures[code]

    def _diagnoses(self, field: str, codes: list[str]) -> tuple[str, ...]:
        for index, code in enumerate(codes):
            if code not in self.codes.icd10:
                self._fail(f"{field}.{index}", f"diagnosis {code!r} is not in the ICD-10-CM code set")
        return tuple(codes)

    def _provider(self, field: str, ref: str | None):
        if ref is None:
            return None
        by_npi = {p.npi: p for p in self.world.providers}
        if ref in by_npi:
            return by_npi[ref]
        matches = [p for p in self.world.providers if p.specialty == ref]
        if not matches:
            specialties = sorted({p.specialty for p in self.world.providers})
            self._fail(field, f"{ref!r} is neither a clinician's NPI nor a specialty ({', '.join(specialties)})")
        return matches[0]

    def _pcp(self, field: str, ref: str | None) -> str | None:
        provider = self._provider(field, ref)
        if provider is not None and provider.specialty != "Primary Care":
            self._fail(field, f"{provider.display_name} is a {provider.specialty} clinician, not a primary care physician")
        return provider.npi if provider is not None else None

    def _facility(self, field: str, facility_id: str):
        if facility_id not in {f.id for f in self.world.facilities + self.world.outside_sites}:
            self._fail(field, f"unknown facility {facility_id!r}")
        return self.world.facility(facility_id)

    def _supplier(self, field: str, supplier_id: str):
        if supplier_id not in {s.id for s in self.world.suppliers}:
            self._fail(field, f"unknown supplier {supplier_id!r}")
        return self.world.supplier(supplier_id)

    # ---- records -----------------------------------------------------------------------------
    def build(self) -> CaseRecords:
        # The case's outside sites first: its orders may send a service to one.
        self.world = replace(self.world, outside_sites=tuple(self._outside_sites()))
        patients = self._patients()
        patient = patients[0]
        chart_cov, payer_cov = self._coverages(patients)
        self.coverage_by_key = {spec.key: c for spec, c in zip(self.case.coverages, chart_cov)}
        self.payer_coverage = {c.id: p for c, p in zip(chart_cov, payer_cov)}
        self.encounters: list[Encounter] = []
        self.admission_encounter: Encounter | None = None
        orders = self._orders(patient)
        docs = self._documents(patient)
        auths = self._requests(patient, docs)
        referrals = self._referrals(patient)
        notices = self._notices(patient)
        billed = self._claims(patient, chart=True)
        claims, remits = [c for c, _ in billed], [r for _, r in billed if r is not None]
        payer_billed = self._claims(patient, chart=False)
        # A claim the payer never received is the chart's alone.
        received = [billed for spec, billed in zip(self.case.claims, payer_billed) if spec.at_payer]
        payer_claims, payer_remits = [c for c, _ in received], [r for _, r in received if r is not None]
        appeals = appeals_on_file(self.case.payer_history.appeals,
                                  {spec.key: billed for spec, billed in zip(self.case.claims, payer_billed)},
                                  {p.id: p.portal for p in self.world.payers}, self.ids, self._fail)
        faxes = self._faxes(patient, auths)
        common = dict(patients=tuple(patients), encounters=tuple(self.encounters), orders=tuple(orders),
                      documents=tuple(docs), authorizations=tuple(auths),
                      faxes=tuple(faxes), inpatient_notices=tuple(notices),
                      # Registration's accident records (the payer knows the injury from the claims billed for it).
                      accidents=tuple(self._accidents(patient)),
                      # The practice's credentialing record and the payer's directory hold one enrollment.
                      provider_enrollments=tuple(self._enrollments() + self._site_networks()),
                      outside_sites=self.world.outside_sites)
        # The desk knows the appeals it filed (reference, date: the denial item records them);
        # how the payer decided is the payer's record, so the chart holds them as filed.
        # A coverage registration does not hold yet is the payer's record (and its card in the chart) only.
        registered = tuple(c for spec, c in zip(self.case.coverages, chart_cov) if spec.registered) + tuple(
            chart_cov[len(self.case.coverages):])
        chart = replace(self.world, coverages=registered, claims=tuple(claims), remittances=tuple(remits),
                        appeals=tuple(as_filed(appeal) for appeal in appeals), **common)
        payer = replace(self.world, coverages=tuple(payer_cov), claims=tuple(payer_claims), appeals=tuple(appeals),
                        remittances=tuple(payer_remits),
                        referrals=tuple(referrals), **common)
        return CaseRecords(chart=chart, payer=payer)

    def _person(self, index: int, first: str, last: str, suffix: str | None, dob, sex: str,
                given: dict) -> Patient:
        city, zip_code = self.rng.choice(CITIES)
        last_name = f"{last} {suffix}" if suffix else last
        return Patient(
            mrn=self.ids.mrn(index), first_name=first, last_name=last_name, dob=dob, sex=sex,
            address=given.get("address") or self.fake.street_address(), city=given.get("city") or city,
            state=STATE, zip=given.get("zip") or zip_code,
            phone=given.get("phone") or phone_number(self.rng, AREA_CODES),
            email=f"{first}.{last}{self.rng.randrange(1, 99)}@example.org".lower().replace(" ", ""),
            language=given.get("language", "English"))

    def _patients(self) -> list[Patient]:
        spec = self.case.patient
        patients = [self._person(0, spec.first_name, spec.last_name, spec.suffix, spec.dob, spec.sex,
                                 spec.model_dump())]
        for index, alike in enumerate(self.case.lookalikes, start=1):
            patients.append(self._person(
                index, alike.first_name or spec.first_name, alike.last_name or spec.last_name,
                alike.suffix if "suffix" in alike.model_fields_set else spec.suffix,
                alike.dob or spec.dob, alike.sex or spec.sex, {}))
        return patients

    def _coverages(self, patients: list[Patient]) -> tuple[list[Coverage], list[Coverage]]:
        chart, payer = [], []
        patient = patients[0]
        self.world_member_ids = {c.member_id for c in self.world.coverages}
        for index, spec in enumerate(self.case.coverages):
            field = f"coverages.{index}"
            self._payer(f"{field}.payer", spec.payer)
            plans = [p for p in self.world.plans if p.payer_id == spec.payer]
            plan = plans[0] if spec.plan is None else next((p for p in plans if p.id == spec.plan), None)
            if plan is None:
                self._fail(f"{field}.plan", f"{spec.payer} has no plan {spec.plan!r} "
                                            f"(its plans: {', '.join(p.id for p in plans)})")
            subscriber = spec.subscriber_name or (patient.full_name if spec.relationship == "Self"
                                                  else f"{self.fake.first_name()} {patient.last_name}")
            coverage = Coverage(
                id=self.ids.coverage(index), mrn=patient.mrn, plan_id=plan.id, payer_id=spec.payer, rank=spec.rank,
                member_id=spec.member_id or self.ids.member_id(spec.payer, index),
                group_number=self.ids.group_number(plan.group_prefix), subscriber_name=subscriber,
                relationship=spec.relationship, effective=spec.effective, termination=spec.termination,
                pcp_npi=self._pcp(f"{field}.pcp", spec.pcp),
                therapy_accumulator=self._therapy_accumulator(f"{field}.therapy_benefit", spec))
            chart.append(coverage)
            at_payer = spec.at_payer.model_dump(exclude_unset=True) if spec.at_payer else {}
            for name, member_id in (("member_id", spec.member_id), ("at_payer.member_id", at_payer.get("member_id"))):
                if member_id in self.world_member_ids:
                    self._fail(f"{field}.{name}", f"{member_id!r} is a member of the background world; "
                                                  "leave it out to get one from the case range")
            payer.append(replace(coverage, **at_payer))
        # Look-alikes are enrolled with the patient's primary payer under their own member ids.
        primary_spec, primary = self.case.coverages[0], chart[0]
        for offset, (alike, spec) in enumerate(zip(patients[1:], self.case.lookalikes), start=len(chart)):
            coverage = replace(primary, id=self.ids.coverage(offset), mrn=alike.mrn, rank=1,
                               member_id=spec.member_id or self.ids.member_id(primary_spec.payer, offset),
                               subscriber_name=alike.full_name, relationship="Self", termination=None,
                               therapy_accumulator=None)
            chart.append(coverage)
            payer.append(coverage)
        return chart, payer

    def _encounter(self, provider, day, facility_id: str | None, reason: str, dx: tuple[str, ...],
                   kind: str = "Office Visit") -> Encounter:
        for enc in self.encounters:
            if enc.date == day and enc.provider_npi == provider.npi:
                return enc
        enc = Encounter(id=self.ids.encounter(len(self.encounters)), mrn=self.patient.mrn, date=day,
                        provider_npi=provider.npi, facility_id=facility_id or provider.facility_id,
                        kind=kind, reason=reason, diagnosis_codes=dx)
        self.encounters.append(enc)
        return enc

    def _orders(self, patient: Patient) -> list[Order]:
        self.patient = patient
        self.order_by_key: dict[str, Order] = {}
        orders = []
        for index, spec in enumerate(self.case.orders):
            field = f"orders.{index}"
            procedure = self._procedure(f"{field}.code", spec.code)
            dx = self._diagnoses(f"{field}.diagnoses", spec.diagnoses)
            provider = self._provider(f"{field}.ordering_provider", spec.ordering_provider)
            facility = self._facility(f"{field}.facility", spec.facility)
            if facility in self.world.outside_sites and service_of(spec.code) not in facility.services:
                # The payers' directory lists a site by what it performs: the ordered service must be one.
                self._fail(f"{field}.facility", f"{facility.name} does not perform {spec.code} "
                                                f"(its services: {', '.join(facility.services)})")
            if spec.supplier is not None:
                self._supplier(f"{field}.supplier", spec.supplier)
            description = spec.description or procedure.description
            if spec.laterality and spec.description is None:
                description = f"{description}, {spec.laterality}"
            admission = self.case.admission
            if admission is not None and admission.order == spec.key:
                enc = self._admission_encounter(field, provider, facility, dx, spec)
            else:
                enc = self._encounter(provider, spec.ordered_on, None, self.codes.icd10[dx[0]], dx,
                                      kind="Office Visit" if spec.visit else "Orders Only")
            order = Order(id=self.ids.order(index), mrn=patient.mrn, encounter_id=enc.id, code=spec.code,
                          description=description, category=procedure.category, units=spec.units,
                          diagnosis_codes=dx, ordering_npi=provider.npi, facility_id=facility.id,
                          place_of_service=facility.place_of_service, ordered_on=spec.ordered_on,
                          planned_date=spec.planned_date, priority=spec.priority, status=spec.status,
                          coverage_id=self.coverage_by_key[spec.coverage].id, needs_auth=spec.needs_auth)
            self.order_by_key[spec.key] = order
            orders.append(order)
        return orders

    def _accidents(self, patient: Patient) -> list[Accident]:
        return [Accident(mrn=patient.mrn, kind=spec.kind, injury_date=spec.injury_date, description=spec.description,
                         employer=spec.employer, carrier=spec.carrier, claim_number=spec.claim_number,
                         status=spec.status, closed_on=spec.closed_on) for spec in self.case.accidents]

    def _enrollments(self) -> list[ProviderEnrollment]:
        enrollments = []
        for index, spec in enumerate(self.case.enrollments):
            field = f"enrollments.{index}"
            if spec.provider not in {p.npi for p in self.world.providers}:
                self._fail(f"{field}.provider", f"no clinician has NPI {spec.provider}")
            self._payer(f"{field}.payer", spec.payer)
            enrollments.append(ProviderEnrollment(
                npi=spec.provider, payer_id=spec.payer, submitted_on=spec.submitted_on, received_on=spec.received_on,
                status=spec.status, effective=spec.effective, welcome_letter_on=spec.welcome_letter_on))
        return enrollments

    def _outside_sites(self) -> list[Facility]:
        known_npis = {p.npi for p in self.world.providers} | {f.npi for f in self.world.facilities}
        sites = []
        for index, spec in enumerate(self.case.sites):
            field = f"sites.{index}"
            if spec.id in {f.id for f in self.world.facilities} | {f.id for f in sites}:
                self._fail(f"{field}.id", f"{spec.id} is already a facility")
            if not is_valid_npi(spec.npi) or spec.npi in known_npis | {f.npi for f in sites}:
                self._fail(f"{field}.npi", f"{spec.npi} is not a valid NPI of its own")
            if spec.zip not in ZIP_CENTROIDS:
                self._fail(f"{field}.zip", f"{spec.zip} is outside the directory's service area")
            for n, service in enumerate(spec.services):
                if service not in SERVICE_CODES:
                    self._fail(f"{field}.services.{n}", f"{service!r} is not a directory service "
                                                        f"({', '.join(SERVICE_CODES)})")
            for n, payer_id in enumerate(spec.networks):
                self._payer(f"{field}.networks.{n}", payer_id)
            sites.append(Facility(id=spec.id, name=spec.name, address=spec.address, city=spec.city, state=STATE,
                                  zip=spec.zip, npi=spec.npi, tax_id="", phone="", fax="",
                                  place_of_service=spec.place_of_service, services=tuple(spec.services),
                                  next_available=spec.next_available))
        return sites

    def _site_networks(self) -> list[ProviderEnrollment]:
        """An outside site participates with the payers it names (and so with no other)."""
        return [ProviderEnrollment(npi=spec.npi, payer_id=payer_id, submitted_on=SITE_CONTRACTED_ON,
                                   received_on=SITE_CONTRACTED_ON, status=PARTICIPATING, effective=SITE_CONTRACTED_ON,
                                   welcome_letter_on=None)
                for spec in self.case.sites for payer_id in spec.networks]

    def _documents(self, patient: Patient) -> list[Document]:
        by_key: dict[str, Document] = {}
        docs = []
        for index, spec in enumerate(self.case.documents):
            field = f"documents.{index}"
            author = self._provider(f"{field}.author", spec.author)
            if spec.type in VISIT_DOCUMENTS and author is None:
                self._fail(f"{field}.author", f"a {spec.type} is signed by a clinician: give an NPI or a specialty")
            order = self.order_by_key.get(spec.order) if spec.order else None
            typed = spec.facts.model_dump()
            if spec.type == "face_to_face" and typed["face_to_face_date"] is None:
                typed["face_to_face_date"] = spec.date
            facts = text.world_facts(typed)
            if spec.type == "addendum" and not (facts or spec.narrative):
                self._fail(f"{field}.facts", "an addendum states the corrected facts (or a narrative)")
            if spec.corrects is not None and spec.corrects not in by_key:
                self._fail(f"{field}.corrects", f"{spec.corrects!r} must be an earlier document of the case")
            if spec.contradicts is not None:
                other = dict(by_key[spec.contradicts].facts) if spec.contradicts in by_key else None
                if other is None or not any(k in other and other[k] != v for k, v in facts.items()):
                    self._fail(f"{field}.contradicts", f"must state a fact that an earlier document, "
                                                      f"{spec.contradicts!r}, states differently")
            enc = None
            if spec.type in HOSPITAL_DOCUMENTS:
                enc = self.admission_encounter
            elif author is not None and spec.type in VISIT_DOCUMENTS:
                dx = order.diagnosis_codes if order else ("Z00.00",)
                enc = self._encounter(author, spec.date, None, self.codes.icd10[dx[0]], dx)
            doc_id = self.ids.document(index)
            doc_rng = random.Random(f"case:{self.task_id}:{spec.key}")
            if spec.type == "insurance_card":
                title = spec.title or f"Insurance card - scanned {us_date(spec.date)}"
                body = self._insurance_card(spec, patient)
            elif spec.type == "clearinghouse_report":
                title = spec.title or f"Clearinghouse acknowledgment - {us_date(spec.date)}"
                body = self._clearinghouse_report(spec.key, doc_id, patient)
            elif spec.type == "addendum":
                corrected = by_key[spec.corrects]
                title = spec.title or f"Addendum - {corrected.title}"
                body = text.addendum_text(patient, author, spec.date, corrected, facts, spec.narrative)
            else:
                title = spec.title or _default_title(spec.type, order)
                extra = (self._written_order_sections(order, author, spec) if spec.type == "written_order"
                         else self._adherence_sections(order, spec) if spec.type == "adherence_report" else ())
                body = (text.hospital_text(spec.type, title, patient, author, spec.date, facts, spec.narrative,
                                           self._stay_line())
                        if spec.type in HOSPITAL_DOCUMENTS else
                        text.write_text(spec.type, title, patient, author, spec.date, facts, spec.narrative, order,
                                        self.codes.icd10, doc_rng, extra))
            order_id = order.id if order else (by_key[spec.corrects].order_id if spec.corrects else None)
            doc = Document(id=doc_id, mrn=patient.mrn, encounter_id=enc.id if enc else None,
                           order_id=order_id, kind=spec.type, title=title,
                           author_npi=author.npi if author else None, date=spec.date, text=body,
                           facts=tuple(facts.items()))
            by_key[spec.key] = doc
            docs.append(doc)
        return docs

    def _insurance_card(self, spec, patient: Patient) -> str:
        """The card of the coverage `spec.coverage` as its payer issued it (the payer's record: member
        id, plan, effective date), front and back, scanned by registration on the document's day."""
        coverage = self.payer_coverage[self.coverage_by_key[spec.coverage].id]
        return text.insurance_card_text(patient, coverage, self.world.payer(coverage.payer_id),
                                        self.world.plan(coverage.plan_id), spec.date, spec.narrative)

    def _submitted(self, index: int, spec, payer) -> tuple:
        """The claim's clearinghouse transmissions, each with its report's document id."""
        report_ids = {d.key: self.ids.document(n) for n, d in enumerate(self.case.documents)}
        return tuple(submission(self.task_id, sent, payer, report_ids[sent.report]) for sent in spec.submissions)

    def _clearinghouse_report(self, key: str, doc_id: str, patient: Patient) -> str:
        """The text of the report of the claim submission `key` names (the case model pairs them)."""
        index, spec = next((i, c) for i, c in enumerate(self.case.claims) if key in {s.report for s in c.submissions})
        coverage = self.coverage_by_key[spec.coverage]
        payer = self.world.payer(coverage.payer_id)
        order = self.order_by_key.get(spec.order) if spec.order else None
        facility = self.world.facility(order.facility_id) if order else self.world.facilities[0]
        lines = tuple(self._line(f"claims.{index}.lines.{n}", n + 1, line, order) for n, line in enumerate(spec.lines))
        sent = next(s for s in self._submitted(index, spec, payer) if s.report_document_id == doc_id)
        return report_text(sent, self.ids.claim_number(spec.service_date, index), patient, coverage.member_id, payer,
                           facility.npi, spec.service_date, lines)

    def _written_order_sections(self, order: Order | None, author, spec) -> tuple:
        if order is None:
            self._fail(f"documents.{self.case.documents.index(spec)}.order", "a written order names its `order`")
        order_spec = next(o for o in self.case.orders if self.order_by_key[o.key] is order)
        sections = [("Item", f"{order.description}, HCPCS {order.code}, quantity {order.units}."),
                    ("Ordering practitioner", f"{author.display_name}, NPI {author.npi}, phone {author.phone}, "
                                              f"fax {author.fax}.")]
        if order_spec.supplier:
            supplier = self.world.supplier(order_spec.supplier)
            sections.append(("Supplier", f"{supplier.name}, NPI {supplier.npi}, fax {supplier.fax}."))
        return tuple(sections)

    def _adherence_sections(self, order: Order | None, spec) -> tuple:
        supplier = next((o.supplier for o in self.case.orders if self.order_by_key[o.key] is order), None)
        if supplier is None:
            self._fail(f"documents.{self.case.documents.index(spec)}.order", "an adherence report names the order "
                                                                            "of the device, with its supplier")
        return adherence_sections(spec.facts.device_setup_date, spec.facts.nightly_minutes,
                                  f"{order.description} ({order.code})", self.world.supplier(supplier).name)

    def _requests(self, patient: Patient, docs: list[Document]) -> list[Authorization]:
        self.auth_by_key: dict[str, Authorization] = {}
        auths = []
        for index, spec in enumerate(self.case.payer_history.requests):
            order = self.order_by_key[spec.order]
            coverage = self.payer_coverage[order.coverage_id]
            payer = self.world.payer(coverage.payer_id)
            start = spec.start or order.planned_date - timedelta(days=3)
            end = spec.end or start + timedelta(days=90)
            if end < start:
                self._fail(f"payer_history.requests.{index}.end", "is before the start")
            delivered_by = self._delivery(f"payer_history.requests.{index}", spec, start, end)
            # A pend asks for what the service needs, as the world's pends and the payer's letter do.
            rule = service_rule(order.code)
            requested = (rule.records_needed,) if spec.status == "Pended" and rule is not None else ()
            auth = Authorization(
                auth_number=self.ids.auth_number(payer.payer_code, order.ordered_on, index), payer_id=payer.id,
                member_id=coverage.member_id, mrn=patient.mrn, code=order.code, units=spec.units or order.units,
                start=start, end=end, status=spec.status, order_id=order.id, case_number=self.ids.case_number(payer.portal, order.ordered_on, index),
                requested_items=requested, recorded=spec.recorded, delivered_on=spec.delivered,
                delivered_by=delivered_by, approved_units=spec.approved_units, approved_code=spec.approved_code)
            self._modified_approval(f"payer_history.requests.{index}", auth)
            if spec.status == "Denied":
                auth = self._denial(f"payer_history.requests.{index}", auth, order, coverage, payer, docs)
            self.auth_by_key[spec.key] = auth
            auths.append(auth)
        return auths

    def _modified_approval(self, field: str, auth: Authorization) -> None:
        """A modified approval grants less than was asked: fewer units, or a code of the same
        category (an MRI without contrast for one with and without)."""
        if auth.approved_units is not None and auth.approved_units >= auth.units:
            self._fail(f"{field}.approved_units", f"is not fewer than the {auth.units} unit(s) requested")
        if auth.approved_code is not None:
            approved = self._procedure(f"{field}.approved_code", auth.approved_code)
            if auth.approved_code == auth.code:
                self._fail(f"{field}.approved_code", "is the code requested")
            if approved.category != self.codes.procedures[auth.code].category:
                self._fail(f"{field}.approved_code", f"a {approved.category} code cannot replace the "
                                                     f"{self.codes.procedures[auth.code].category} service requested")

    def _delivery(self, field: str, spec, start, end) -> str | None:
        """The NPI of the supplier that delivered approved equipment (the order's supplier), within the
        approval's dates."""
        if spec.delivered is None:
            return None
        supplier = next(o.supplier for o in self.case.orders if o.key == spec.order)
        if supplier is None:
            self._fail(f"{field}.order", "delivered equipment names its order's supplier")
        if not start <= spec.delivered <= end:
            self._fail(f"{field}.delivered", "is outside the approval's dates")
        return self.world.supplier(supplier).npi

    def _admission_encounter(self, field: str, attending, facility, dx: tuple[str, ...], spec) -> Encounter:
        """The case's inpatient stay as an encounter: admitted on its order's day, at an inpatient
        hospital, by the order's clinician (the attending), for the order's first diagnosis."""
        admission = self.case.admission
        if facility.place_of_service != "21":
            self._fail(f"{field}.facility", f"{facility.name} is no inpatient hospital (place of service 21)")
        if spec.ordered_on != admission.admitted_at.date():
            self._fail(f"{field}.ordered_on", "the stay's order is written on the admit date")
        discharge = admission.discharge
        enc = Encounter(id=self.ids.encounter(len(self.encounters)), mrn=self.patient.mrn,
                        date=admission.admitted_at.date(), provider_npi=attending.npi, facility_id=facility.id,
                        kind="Inpatient Admission", reason=self.codes.icd10[dx[0]], diagnosis_codes=dx,
                        admitted_at=admission.admitted_at, admission_type=admission.type, unit=admission.unit,
                        bed=admission.bed, discharged_on=discharge.on if discharge else None,
                        disposition=discharge.disposition if discharge else None)
        self.encounters.append(enc)
        self.admission_encounter = enc
        return enc

    def _stay_line(self) -> str:
        enc = self.admission_encounter
        attending = self.world.provider(enc.provider_npi)
        line = (f"Admitted {us_date(enc.admitted_at.date())} {enc.admitted_at:%H:%M} ({enc.admission_type.lower()}) "
                f"to {self.world.facility(enc.facility_id).name}, {enc.unit}, bed {enc.bed}; attending "
                f"{attending.display_name}; admitting diagnosis {enc.diagnosis_codes[0]} {enc.reason}.")
        if enc.discharged_on is not None:
            line += f" Discharged {us_date(enc.discharged_on)} to {enc.disposition.lower()}."
        return line

    def _notices(self, patient: Patient) -> list[InpatientNotice]:
        """The admission as notified to the payer of its order's coverage (payer_history.notification)."""
        spec = self.case.payer_history.notification
        if spec is None:
            return []
        enc = self.admission_encounter
        order = self.order_by_key[self.case.admission.order]
        coverage = self.payer_coverage[order.coverage_id]
        payer = self.world.payer(coverage.payer_id)
        if payer.portal != "b":
            self._fail("payer_history.notification", f"{payer.name} takes no inpatient notifications in the "
                                                      "benchmark's portals (Keystone Mutual's portal does)")
        if not coverage.active_on(enc.date):
            self._fail("payer_history.notification", "the coverage is not active on the admit date")
        return [InpatientNotice(
            case_number=f"KM-I-{enc.date:%y}-9{self.ids._tail(0, 1)}", payer_id=payer.id,
            member_id=coverage.member_id, mrn=patient.mrn, order_id=order.id, encounter_id=enc.id,
            admitted_at=enc.admitted_at, admission_type=enc.admission_type, facility_id=enc.facility_id,
            attending_npi=enc.provider_npi, diagnosis_codes=enc.diagnosis_codes, notified_at=spec.notified_at,
            approved_days=spec.approved_days, next_review=enc.date + timedelta(days=spec.approved_days),
            recorded=spec.recorded)]

    def _referrals(self, patient: Patient) -> list[Referral]:
        """PCP referrals on file: from the coverage's PCP of record to the order's (specialist) clinician."""
        referrals = []
        for index, spec in enumerate(self.case.payer_history.referrals):
            field = f"payer_history.referrals.{index}"
            order = self.order_by_key.get(spec.order)
            if order is None:
                self._fail(f"{field}.order", f"no order {spec.order!r}")
            coverage = self.payer_coverage[order.coverage_id]
            if coverage.pcp_npi is None:
                self._fail(f"{field}.order", "the order's coverage names no PCP of record (coverages.N.pcp)")
            specialist = self.world.provider(order.ordering_npi)
            payer = self.world.payer(coverage.payer_id)
            referrals.append(Referral(
                number=f"KR-{spec.start:%y}-9{self.ids._tail(index, 1)}", payer_id=payer.id,
                member_id=coverage.member_id, mrn=patient.mrn, referring_npi=coverage.pcp_npi,
                specialist_npi=specialist.npi, specialty=specialist.specialty, diagnosis_codes=order.diagnosis_codes,
                visits=spec.visits, start=spec.start, end=spec.start + timedelta(days=REFERRAL_VALID_DAYS), order_id=order.id))
        return referrals

    def _denial(self, field: str, auth: Authorization, order: Order, coverage: Coverage, payer, docs) -> Authorization:
        """A denial on file quotes the criterion the order's documents failed when it was
        decided (the payer reviews what the request carried: the order's own documents)."""
        facts: dict[str, str] = {}
        for doc in docs:
            if doc.order_id == order.id:
                facts.update(dict(doc.facts))
        outcome = review(order.code, payer.portal, self.world.plan(coverage.plan_id).product, facts,
                         coverage.active_on(auth.start))
        if outcome.outcome != NOT_MET:
            self._fail(f"{field}.status", f"the payer's rules give {outcome.outcome} for this order's documents, "
                                          "not a denial on a criterion")
        return replace(auth, decision_reason=outcome.reason, failed_criterion=outcome.criterion_id)

    def _claims(self, patient: Patient, chart: bool) -> list[tuple[Claim, Remittance | None]]:
        results = []
        for index, spec in enumerate(self.case.claims):
            field = f"claims.{index}"
            coverage = self.coverage_by_key[spec.coverage]
            if not chart:
                coverage = self.payer_coverage[coverage.id]
            payer = self.world.payer(coverage.payer_id)
            order = self.order_by_key.get(spec.order) if spec.order else None
            lines = tuple(self._line(f"{field}.lines.{n}", n + 1, line, order) for n, line in enumerate(spec.lines))
            facility = self.world.facility(order.facility_id) if order else self.world.facilities[0]
            rendering = order.ordering_npi if order else self.world.providers[0].npi
            claim = Claim(
                claim_number=self.ids.claim_number(spec.service_date, index), mrn=patient.mrn, payer_id=payer.id,
                coverage_id=coverage.id, member_id=self._billed_member_id(spec, coverage),
                service_date=spec.service_date, billing_npi=facility.npi, rendering_npi=rendering,
                facility_id=facility.id,
                submitted_on=spec.submitted_on, total_charge=round(sum(line.charge for line in lines), 2),
                status=spec.status, lines=lines, order_id=order.id if order else None,
                auth_number=self.auth_by_key[spec.auth].auth_number if spec.auth else None,
                payment_review=spec.payment_review, underpaid=spec.underpaid,
                eligibility_error=spec.eligibility_error, submissions=self._submitted(index, spec, payer))
            if not chart and claim.member_id == coverage.member_id and self._unidentified(spec):
                self._fail(f"{field}.lines", f"the payer holds the patient under the billed member id "
                                             f"{claim.member_id}: a CARC 31 denial needs another id at the payer "
                                             "(coverage at_payer.member_id)")
            if spec.eligibility_error and not self.payer_coverage[coverage.id].active_on(spec.service_date):
                self._fail(f"{field}.eligibility_error", "the payer's enrollment record (at_payer) does not cover "
                                                         "the date of service: the CO-27 is no error")
            remittance = None
            if spec.remittance is not None:
                paid_on = spec.remittance.paid_on
                remittance = Remittance(
                    id=self.ids.remittance(paid_on, index), claim_number=claim.claim_number, payer_id=payer.id,
                    paid_on=paid_on, check_number=self.ids.check_number(index), paid_amount=claim.paid_amount,
                    patient_responsibility=round(sum(a.amount for line in lines for a in line.adjustments
                                                     if a.group == "PR"), 2),
                    appeal_deadline=spec.remittance.appeal_deadline
                    or paid_on + timedelta(days=payer.timely_appeal_days))
            if chart and spec.no_response:  # nothing the payer did has reached the office
                claim, remittance = replace(claim, status="Pending", lines=tuple(map(pending_line, lines)),
                                            no_response=True), None
            results.append((claim, remittance))
        return link_duplicates(self._benefit_limits(self._recoupments(results)))

    @staticmethod
    def _unidentified(spec) -> bool:
        """The payer denied the claim because it could not identify the patient as its member (CARC 31)."""
        return any(adj.carc == UNIDENTIFIED_CARC for line in spec.lines for adj in line.adjustments)

    def _billed_member_id(self, spec, coverage: Coverage) -> str:
        """The member id on the claim: the payer files it under the member it holds, except a claim it
        could not identify the patient on, which keeps the id registration billed."""
        return self.coverage_by_key[spec.coverage].member_id if self._unidentified(spec) else coverage.member_id

    def _recoupments(self, billed: list[tuple[Claim, Remittance | None]]) -> list[tuple[Claim, Remittance | None]]:
        """Each claim the payer will recover from, with the claim it names as the first payment."""
        number_of = {spec.key: claim.claim_number for spec, (claim, _) in zip(self.case.claims, billed)}
        results = []
        for spec, (claim, remittance) in zip(self.case.claims, billed):
            if spec.recoupment is not None:
                notice = spec.recoupment
                claim = replace(claim, recoupment=Recoupment(
                    duplicate_of=number_of[notice.duplicate_of], amount=claim.paid_amount, notice_on=notice.notice_on,
                    dispute_by=notice.notice_on + timedelta(days=RECOUPMENT_DISPUTE_DAYS),
                    payer_error=notice.payer_error))
            results.append((claim, remittance))
        return results

    def _therapy_accumulator(self, field: str, spec) -> BenefitAccumulator | None:
        """The coverage's therapy visit accumulator; only Keystone's portal shows one."""
        benefit = spec.therapy_benefit
        if benefit is None:
            return None
        if spec.payer != KEYSTONE_PAYER:
            self._fail(field, f"only {KEYSTONE_PAYER}'s portal shows a visit accumulator")
        # This practice's visits were rendered where the case's therapy is ordered.
        practice = self.world.facility(self.case.orders[0].facility).name if self.case.orders else "Outside provider"
        start = benefit.period_start
        return BenefitAccumulator(
            benefit=benefit.benefit, visits_allowed=benefit.visits_allowed, period_start=start,
            period_end=start.replace(year=start.year + 1) - timedelta(days=1),
            counted=tuple(CountedVisit(on=v.service_date, code=v.code, provider=v.provider or practice)
                          for v in benefit.counted),
            payer_error=False, limit_type=benefit.limit.capitalize())

    def _benefit_limits(self, billed: list[tuple[Claim, Remittance | None]]) -> list[tuple[Claim, Remittance | None]]:
        """Each claim denied over a visit limit, with the payer's accumulator of that limit."""
        results = []
        for spec, (claim, remittance) in zip(self.case.claims, billed):
            limit = spec.benefit_limit
            if limit is not None:
                practice = self.world.facility(claim.facility_id).name
                start = limit.period_start
                claim = replace(claim, benefit_accumulator=BenefitAccumulator(
                    benefit=limit.benefit, visits_allowed=limit.visits_allowed, period_start=start,
                    period_end=start.replace(year=start.year + 1) - timedelta(days=1),
                    counted=tuple(CountedVisit(on=v.service_date, code=v.code, provider=v.provider or practice)
                                  for v in limit.counted),
                    payer_error=limit.payer_error))
            results.append((claim, remittance))
        return results

    def _line(self, field: str, line_no: int, spec, order: Order | None) -> ClaimLine:
        self._procedure(f"{field}.code", spec.code)
        if spec.diagnoses is None and order is None:
            self._fail(f"{field}.diagnoses", "give the line's diagnoses (the claim names no order)")
        dx = self._diagnoses(f"{field}.diagnoses", spec.diagnoses) if spec.diagnoses else order.diagnosis_codes
        unpaid = round(spec.charge - spec.paid, 2)
        adjustments = []
        for n, adj in enumerate(spec.adjustments):
            if adj.carc not in self.codes.carc:
                self._fail(f"{field}.adjustments.{n}.carc", f"{adj.carc!r} is not a CARC code")
            if adj.rarc is not None and adj.rarc not in self.codes.rarc:
                self._fail(f"{field}.adjustments.{n}.rarc", f"{adj.rarc!r} is not a RARC code")
            stated = sum(a.amount or 0.0 for a in spec.adjustments)
            amount = adj.amount if adj.amount is not None else round(unpaid - stated, 2)
            adjustments.append(Adjustment(adj.group, adj.carc, adj.rarc, amount))
        return ClaimLine(line_no, spec.code, tuple(spec.modifiers), spec.units, spec.charge, dx, spec.paid,
                         tuple(adjustments))

    def _faxes(self, patient: Patient, auths: list[Authorization]) -> list[InboundFax]:
        inbox = FaxInbox(self.rng, WORLD_ANCHOR, self.world.payers, self.world.facilities,
                         self.world.providers)
        faxes = []
        first_order = next(iter(self.order_by_key.values()), None)
        to_number = self.world.facility(first_order.facility_id).fax if first_order else self.world.facilities[0].fax
        for index, spec in enumerate(self.case.faxes):
            if spec.about is not None:
                auth = self.auth_by_key[spec.about]
                order = next(o for o in self.order_by_key.values() if o.id == auth.order_id)
                approved = self.codes.procedures[auth.approved_code].description if auth.approved_code else ""
                inbox.determination(auth, order, patient, approved)
                made = inbox.faxes.pop()
            elif spec.supplier is not None:
                supplier = self._supplier(f"faxes.{index}.supplier", spec.supplier)
                inbox.supplier_confirmation(supplier, self.order_by_key[spec.order], patient)
                made = inbox.faxes.pop()
            else:
                made = InboundFax("", spec.from_number, spec.from_name, to_number, spec.received_at, spec.csid or "",
                                  spec.kind, patient.mrn, tuple(spec.pages))
            faxes.append(replace(made, id=self.ids.fax(index), received_at=spec.received_at,
                                 csid=made.csid if spec.csid is None else spec.csid,
                                 pages_text=tuple(spec.pages) or made.pages_text))
        return faxes


def _default_title(kind: str, order: Order | None) -> str:
    title = text.DEFAULT_TITLES.get(kind, kind.replace("_", " ").title())
    if kind in ("face_to_face", "written_order") and order is not None:
        return f"{title} - {order.code}"
    return title
