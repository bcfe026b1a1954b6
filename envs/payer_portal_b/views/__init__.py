"""Portal B's blueprints, one module per area."""
from admindesk.envs.payer_portal_b.views.appeals import appeals
from admindesk.envs.payer_portal_b.views.claims import claims
from admindesk.envs.payer_portal_b.views.corrected_claims import corrected_claims
from admindesk.envs.payer_portal_b.views.correspondence import correspondence
from admindesk.envs.payer_portal_b.views.dme import dme
from admindesk.envs.payer_portal_b.views.eligibility import eligibility
from admindesk.envs.payer_portal_b.views.home import home
from admindesk.envs.payer_portal_b.views.inpatient import inpatient
from admindesk.envs.payer_portal_b.views.policies import policies
from admindesk.envs.payer_portal_b.views.precert import precert
from admindesk.envs.payer_portal_b.views.precert_actions import precert_actions
from admindesk.envs.payer_portal_b.views.referrals import referrals

BLUEPRINTS = (home, eligibility, policies, precert, claims, appeals, dme, correspondence, precert_actions,
               corrected_claims, referrals, inpatient)
