"""`python -m admindesk.envs.payer_portal_a --port P --bench-port B --data-dir D --token T`."""
from admindesk.envs.common.serve import serve_main
from admindesk.envs.payer_portal_a import create_app

if __name__ == "__main__":
    serve_main("payer_portal_a", create_app)
