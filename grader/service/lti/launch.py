"""The launch (IMS Security Framework 1.0 §5.1.3, LTI Core 1.3 §5), as pylti1p3's
``MessageLaunch`` with stricter checks.

Where pylti1p3 is looser than the specifications, it is overridden here:
  * it checks a nonce exists but never consumes it, and re-accepts a launch whose (state,
    id_token) it saw before: here the state is single-use and holds the nonce it was issued
    with, and a used nonce is remembered;
  * it does not verify ``aud`` (only that its first value is a known client_id) nor ``azp``;
  * it fetches the platform's JWKS without a timeout and echoes the response on error (keys.py).
The order matters too: the signature is verified before the state and nonce are consumed,
so a forged token cannot use up a real launch's state."""
from __future__ import annotations

import hmac
import time
from typing import Any, cast

import jwt
from jwcrypto.common import JWException
from pylti1p3.exception import LtiException
from pylti1p3.message_launch import MessageLaunch, TJwtData
from pylti1p3.registration import TKeySet
from pylti1p3.session import SessionService
from pylti1p3.tool_config import ToolConfJsonFile

from .adapters import LtiCookieService, LtiRequest
from .claims import Launch, build_launch
from .config import PlatformRegistration
from .errors import CONFIGURATION, LtiRefusal
from .keys import allow_refetch, digest, fetch_key_set, key_message
from .tool import LtiTool

ALGORITHMS = ("RS256", "RS384", "RS512")  # IMS Security Framework §6.1: RSA signatures; never "none" or HMAC
_STATE_KEY = "lti1p3-{}"  # pylti1p3's SessionService key for a state's parameters


class JudgeMessageLaunch(MessageLaunch[LtiRequest, ToolConfJsonFile, SessionService, LtiCookieService]):
    """The launch (§5.1.3): an id_token and a state, form-posted by the browser."""

    def __init__(self, request: LtiRequest, tool: LtiTool, cookies: LtiCookieService | None = None) -> None:
        self.cookies = cookies or LtiCookieService(request, tool.cookie_path)
        super().__init__(request, tool.config.pylti, SessionService(request), self.cookies, tool.storage,
                         tool.http_session())
        self._tool = tool
        self._platform: PlatformRegistration | None = None
        self._login: dict[str, Any] = {}
        self.launch: Launch | None = None

    def _get_request_param(self, key: str) -> str:
        return self._request.get_param(key)

    def validate(self) -> JudgeMessageLaunch:
        self._validated = True  # _get_jwt_body() would otherwise re-enter validate()
        try:
            self._decode_unverified()
            self.validate_registration()
            self.validate_jwt_signature()
            self.validate_deployment()
            assert self._platform is not None
            launch = build_launch(self._jwt["body"], self._launch_id, self._platform.client_id,
                                  self._tool.launch_url)
            if not self._tool.is_own_url(launch.target_link_uri):
                raise LtiRefusal(400, "the claim target_link_uri is not a URL of this tool")
            self.validate_state()
            self.validate_nonce()
            self.launch = launch
            if launch.message_type == "LtiDeepLinkingRequest":
                self.save_launch_data()
        except BaseException:
            self._validated = False
            raise
        return self

    def _decode_unverified(self) -> None:
        token = self._get_request_param("id_token")
        if not token:
            raise LtiRefusal(400, "the launch has no id_token")
        try:
            header = jwt.get_unverified_header(token)
            body = jwt.decode(token, options={"verify_signature": False})
        except jwt.InvalidTokenError:
            raise LtiRefusal(400, "the id_token is not a JWT") from None
        self._jwt = cast(TJwtData, {"header": header, "body": body})

    def get_client_id(self) -> str:
        if self._platform is None:
            raise LtiRefusal(400, "the id_token's registration is not resolved yet")
        return self._platform.client_id

    def validate_registration(self) -> JudgeMessageLaunch:
        body = self._jwt["body"]
        iss, aud, azp = body.get("iss"), body.get("aud"), body.get("azp")
        if not isinstance(iss, str) or not iss:
            raise LtiRefusal(400, "the id_token lacks the required claim iss")
        audiences = [aud] if isinstance(aud, str) else aud
        if not isinstance(audiences, list) or not audiences or not all(isinstance(a, str) for a in audiences):
            raise LtiRefusal(400, "the id_token lacks the required claim aud")
        known = [r for r in self._tool.config.for_issuer(iss) if r.client_id in audiences]
        if not known:
            self._tool.registration(iss, None)  # names an unknown issuer first
            raise LtiRefusal(401, "the id_token's audience (aud) does not include this tool's client_id")
        reg = known[0]
        # OIDC Core §3.1.3.7 (IMS Security Framework §5.1.3): several audiences need azp, and azp is us.
        if len(audiences) > 1 and azp is None:
            raise LtiRefusal(401, "the id_token has several audiences but no azp claim")
        if azp is not None and azp != reg.client_id:
            raise LtiRefusal(401, "the id_token's authorized party (azp) is not this tool's client_id")
        self._platform = reg
        self._registration = self._tool.config.pylti.find_registration_by_params(iss, reg.client_id)
        return self

    def validate_jwt_signature(self) -> JudgeMessageLaunch:
        assert self._platform is not None
        alg = self._jwt["header"].get("alg")
        if alg not in ALGORITHMS:
            raise LtiRefusal(401, f"the id_token must be signed with RS256, not {alg!r}")
        key, key_alg = self._public_key()
        try:
            jwt.decode(self._get_request_param("id_token"), key, algorithms=[key_alg],
                       audience=self._platform.client_id, issuer=self._platform.issuer, leeway=self._tool.leeway,
                       options={"require": ["iss", "aud", "exp", "iat", "nonce"]})
        except jwt.InvalidSignatureError:
            raise LtiRefusal(401, "the id_token's signature does not verify with the platform's key "
                                  f"{self._jwt['header'].get('kid')!r}") from None
        except jwt.ExpiredSignatureError:
            raise LtiRefusal(401, "the id_token has expired (its exp is in the past)") from None
        except jwt.ImmatureSignatureError:
            raise LtiRefusal(401, "the id_token is not valid yet (its iat is in the future)") from None
        except jwt.InvalidAudienceError:
            raise LtiRefusal(401, "the id_token's audience (aud) does not include this tool's client_id") from None
        except jwt.MissingRequiredClaimError as e:
            raise LtiRefusal(400, f"the id_token lacks the required claim {e.claim}") from None
        except jwt.InvalidTokenError as e:  # PyJWT's messages name the claim, never its value
            raise LtiRefusal(401, f"the id_token is invalid: {e}") from None
        except jwt.PyJWTError:  # the platform's key itself does not suit the algorithm
            raise LtiRefusal(401, key_message("", self._jwt["header"])) from None
        return self

    def _public_key(self) -> tuple[str, str]:
        try:
            return self.get_public_key()
        except (LtiException, JWException) as e:  # jwcrypto's for a key of the set it cannot read
            if str(e) != "Unable to find public key" or not self._refetch_allowed():
                raise LtiRefusal(401, key_message(str(e), self._jwt["header"])) from None
        try:  # an unknown kid: the platform may have rotated its keys since we cached them
            return self.get_public_key()
        except (LtiException, JWException) as e:
            raise LtiRefusal(401, key_message(str(e), self._jwt["header"])) from None

    def _refetch_allowed(self) -> bool:
        platform, reg = self._platform, self._registration
        if platform is None or reg is None or platform.static_key_set or not platform.key_set_url:
            return False
        if not allow_refetch(self._tool.storage, platform.key_set_url):
            return False
        reg.set_key_set(None)
        return True

    def fetch_public_key(self, key_set_url: str) -> TKeySet:
        # pylti1p3's has no timeout, no size limit, and echoes the platform's answer in its error.
        return cast(TKeySet, fetch_key_set(self._requests_session, self._tool.storage, key_set_url,
                                           self._tool.jwks_ttl))

    def validate_deployment(self) -> JudgeMessageLaunch:
        assert self._platform is not None
        deployment = self._jwt["body"].get("https://purl.imsglobal.org/spec/lti/claim/deployment_id")
        if not isinstance(deployment, str) or not deployment:
            raise LtiRefusal(400, "the id_token lacks the required claim "
                                  "https://purl.imsglobal.org/spec/lti/claim/deployment_id")
        if deployment not in self._platform.deployment_ids:
            raise LtiRefusal(403, f"deployment_id {deployment!r} is not registered for issuer "
                                  f"{self._platform.issuer!r}", CONFIGURATION)
        return self

    def validate_state(self) -> JudgeMessageLaunch:
        assert self._platform is not None
        state = self._get_request_param("state")
        if not state:
            raise LtiRefusal(400, "the launch has no state")
        # Only a state's record may be looked up: the store also holds deep-linking launches.
        login = self._tool.storage.pop_value(_STATE_KEY.format(state)) if state.startswith("state-") else None
        if not isinstance(login, dict) or "nonce" not in login:
            raise LtiRefusal(400, "the state is unknown, expired or already used (a replayed launch): "
                                  f"a launch is accepted once, within {self._tool.login_ttl} s of its login")
        if self._tool.bind_state_to_cookie:
            cookie = self.cookies.get_cookie(state)
            if cookie is None or not hmac.compare_digest(cookie.encode(), state.encode()):
                raise LtiRefusal(400, "the state cookie set at login did not come back: the browser blocked it "
                                      "(third-party cookies in an iframe) or the launch comes from another browser",
                                 "Tell your LMS administrator to open the tool in a new window (Canvas: Launch in "
                                 "a new tab; Moodle: Launch container: New window): browsers keep cookies from a "
                                 "tool inside the LMS's frame.")
            self.cookies.delete_cookie(state)
        if (login.get("iss"), login.get("client_id")) != (self._platform.issuer, self._platform.client_id):
            raise LtiRefusal(400, "the id_token's issuer or client_id is not the one the login was made for")
        self._login = login
        return self

    def validate_nonce(self) -> JudgeMessageLaunch:
        body = self._jwt["body"]
        nonce = body.get("nonce")
        if not isinstance(nonce, str) or not nonce or len(nonce) > 1024:
            raise LtiRefusal(400, "the id_token's nonce must be a non-empty string")
        used = "used-nonce-" + digest(nonce)
        if self._tool.storage.check_value(used):
            raise LtiRefusal(400, "the id_token's nonce was already used (a replayed launch)")
        expected = str(self._login.get("nonce", ""))
        if not hmac.compare_digest(expected.encode(), nonce.encode()):
            raise LtiRefusal(400, "the id_token's nonce is not the one sent with this login")
        # Remembered until the token expires (it cannot verify after that), at most a day.
        exp = body.get("exp")
        remaining = int(exp - time.time()) if isinstance(exp, (int, float)) else 0
        self._tool.storage.set_value(used, True, exp=max(60, min(remaining + self._tool.leeway, 86400)))
        self._tool.storage.delete_value(f"lti1p3-nonce-{nonce}")
        return self

    def save_launch_data(self) -> JudgeMessageLaunch:
        # Unlike pylti1p3's, no "state is valid for this id_token" record: it is what allows replays.
        self._tool.storage.set_value(self._launch_id, dict(self._jwt["body"]), exp=self._tool.deep_link_ttl)
        return self

    @classmethod
    def restore(cls, request: LtiRequest, tool: LtiTool, launch_id: str) -> JudgeMessageLaunch:
        """A deep-linking launch saved by ``validate``, by its ``launch_id``."""
        body = tool.storage.get_value(launch_id) if launch_id.startswith("lti1p3-launch-") else None
        if not isinstance(body, dict):
            raise LtiRefusal(400, f"the launch is unknown or expired: deep linking must finish within "
                                  f"{tool.deep_link_ttl} s of its launch, once")
        obj = cls(request, tool)
        obj.set_launch_id(launch_id).set_auto_validation(enable=False).set_restored()
        obj.set_jwt(cast(TJwtData, {"body": body}))
        obj.validate_registration()
        obj.launch = build_launch(body, launch_id, obj.get_client_id(), tool.launch_url)
        return obj
