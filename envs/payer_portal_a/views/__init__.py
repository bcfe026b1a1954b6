"""Portal A's blueprints, one module per area of the portal."""
from admindesk.envs.payer_portal_a.views.appeals import appeals
from admindesk.envs.payer_portal_a.views.auth_lookup import auth_lookup
from admindesk.envs.payer_portal_a.views.claims import claims
from admindesk.envs.payer_portal_a.views.corrected_claims import corrected_claims
from admindesk.envs.payer_portal_a.views.correspondence import correspondence
from admindesk.envs.payer_portal_a.views.eligibility import eligibility
from admindesk.envs.payer_portal_a.views.home import home
from admindesk.envs.payer_portal_a.views.network import network
from admindesk.envs.payer_portal_a.views.notices import notices
from admindesk.envs.payer_portal_a.views.pa_actions import pa_actions
from admindesk.envs.payer_portal_a.views.pa_cases import pa_cases
from admindesk.envs.payer_portal_a.views.pa_wizard import pa_wizard

BLUEPRINTS = (home, eligibility, auth_lookup, pa_wizard, pa_cases, pa_actions, claims, corrected_claims, appeals, correspondence,
               notices, network)
