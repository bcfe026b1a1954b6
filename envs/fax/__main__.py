"""`python -m admindesk.envs.fax --port P --bench-port B --data-dir D --token T`."""
from admindesk.envs.common.serve import serve_main
from admindesk.envs.fax import create_app

if __name__ == "__main__":
    serve_main("fax", create_app)
