"""The leaderboard: submissions (a run folder + submission.json) validated by re-scoring
their stored records, and a static site ranking the accepted ones."""
from admindesk.harness.leaderboard.site import Site, build_site
from admindesk.harness.leaderboard.submission import SubmissionMeta, Verdict, validate_submission

__all__ = ["Site", "SubmissionMeta", "Verdict", "build_site", "validate_submission"]
