"""Steps the prior-auth templates share for an authorization already on file at the payer: an
approved one to change (approved_auth) and a denied request to act on (denied_request)."""
