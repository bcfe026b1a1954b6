"""Portal B's blueprints, one module per area."""
from .appeals import appeals
from .claims import claims
from .correspondence import correspondence
from .corrected_claims import corrected_claims
from .dme import dme
from .eligibility import eligibility
from .home import home
from .policies import policies
from .precert import precert
from .precert_actions import precert_actions

BLUEPRINTS = (home, eligibility, policies, precert, claims, appeals, dme, correspondence, precert_actions,
               corrected_claims)
