"""Portal A's blueprints, one module per area of the portal."""
from .appeals import appeals
from .auth_lookup import auth_lookup
from .claims import claims
from .corrected_claims import corrected_claims
from .correspondence import correspondence
from .eligibility import eligibility
from .home import home
from .notices import notices
from .pa_actions import pa_actions
from .pa_cases import pa_cases
from .pa_wizard import pa_wizard

BLUEPRINTS = (home, eligibility, auth_lookup, pa_wizard, pa_cases, pa_actions, claims, corrected_claims, appeals, correspondence,
               notices)
