"""LTI 1.3: the judge as a tool launched from an LMS (Canvas, Moodle), with pylti1p3.

  config        the platforms' registrations (pylti1p3's JSON file) and the tool's key pair
  adapters      pylti1p3 for Starlette: request, cookies, redirect
  storage       pylti1p3's launch-data storage, in this process: states, nonces, launches, key sets
  claims        the typed ``Launch`` and the message claims it is built from
  login         the OIDC login initiation
  launch        the launch, with pylti1p3's checks made strict
  keys          the platforms' key sets (JWKS), fetched and cached
  tool          ``LtiTool`` and the ``Provisioner`` the service implements
  routes        ``build_router(tool)``: /lti/login, /lti/launch, /lti/jwks, /lti/deep-link
  deep_linking  the signed LtiDeepLinkingResponse
  ags           scores to the platform's gradebook (Assignment and Grade Services)
  oauth         the access tokens AGS needs (client credentials, RFC 7523)
  register      what an administrator enters in the LMS

Nothing is imported here: ``grader lti register`` needs only ``register`` and ``claims``, not
FastAPI or pylti1p3."""
