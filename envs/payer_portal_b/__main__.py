"""`python -m admindesk.envs.payer_portal_b --port P --bench-port B --data-dir D --token T`."""
from admindesk.envs.common.serve import serve_main
from admindesk.envs.payer_portal_b import create_app

serve_main("payer_portal_b", create_app)
