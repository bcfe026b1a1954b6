"""Serve the EHR: `python -m admindesk.envs.ehr_web --port P --bench-port B --data-dir D --token T`."""
from admindesk.envs.common.serve import serve_main
from admindesk.envs.ehr_web import create_app

if __name__ == "__main__":
    serve_main("ehr_web", create_app)
