"""Signing in to the desk with a token the server already accepts (graphs.auth).

The login form takes the user's token; the desk checks it by asking the server's own API (a search of the
user's studies, which the auth handler admits or refuses with a 401 in words) and keeps it in a cookie that
scripts cannot read (``HttpOnly``), sent only to the desk's own pages (``Path=/desk``) and never with a
request another site starts (``SameSite=Strict``). Every page forwards it as ``Authorization: Bearer <token>``;
the desk holds no users or passwords of its own. The name shown on the pages comes from the same handler.

Beyond SameSite, every POST form carries a check value bound to the session (:func:`csrf_value`: an HMAC of the
signed-in token, or before signing in of a random pre-login cookie, under the server's key), put into each form
of a page by :func:`with_csrf` and checked by :func:`csrf_refusal` before the form is acted on: a form another
site builds is refused in words even where a browser does not honour SameSite.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from typing import Any, Mapping

from starlette.requests import Request
from starlette.responses import Response

__all__ = ["COOKIE", "PRE_COOKIE", "CSRF_FIELD", "token_of", "check_token", "identity", "set_token", "clear_token",
           "csrf_basis", "csrf_value", "with_csrf", "csrf_refusal", "set_pre_login"]

COOKIE = "aquascope_desk"
PRE_COOKIE = "aquascope_desk_pre"  # before signing in: what the login form's check value is bound to
CSRF_FIELD = "csrf"
MAX_TOKEN = 4096
# the key of the check values: AQUASCOPE_DESK_SECRET when several server processes share the desk, else one per
# process (a restart asks for a reload of the page, in words)
_KEY = os.environ.get("AQUASCOPE_DESK_SECRET", "").encode() or secrets.token_bytes(32)


def token_of(request: Request) -> str | None:
    token = (request.cookies.get(COOKIE) or "").strip()
    return token or None


async def identity(token: str) -> str | None:
    """The user the server's auth handler names for ``token`` (None when it refuses the token)."""
    try:
        from graphs.auth import authenticate

        user = await authenticate(f"Bearer {token}")
    except Exception:
        return None
    return str(user.get("identity")) if isinstance(user, dict) else None


async def check_token(token: str) -> str:
    """The signed-in user's name, after the server's API accepted ``token``; ApiError in words otherwise."""
    from graphs.desk.api import ApiError, connect, describe_error

    token = (token or "").strip()
    if not token:
        raise ApiError("Enter your access token: the token the operator gave you for this server "
                       "(the one you send as 'Authorization: Bearer <token>').", 400)
    if len(token) > MAX_TOKEN or any(c.isspace() for c in token):
        raise ApiError("That is not a token: a token is one word with no spaces, as the operator gave it.", 400)
    try:
        async with connect(token) as client:
            await client.threads.search(limit=1)
    except Exception as exc:
        err = describe_error(exc, "sign in")
        if err.status == 401:
            raise ApiError("The server does not know that token (it may be mistyped or revoked). "
                           "Ask the operator for yours.", 401) from None
        raise err from None
    return await identity(token) or "you"


def set_token(response: Response, request: Request, token: str) -> None:
    response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/desk",
                        secure=request.url.scheme == "https", max_age=12 * 3600)


def clear_token(response: Response) -> None:
    response.delete_cookie(COOKIE, path="/desk")


def wants_login(request: Request) -> Any:
    """Where to send someone with no token: the login page, remembering the page they asked for."""
    from urllib.parse import quote

    from starlette.responses import RedirectResponse

    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/desk/login?next={quote(target)}", status_code=303)


# -- the forms' check value (CSRF) ---------------------------------------------------------------------------

def csrf_basis(request: Request) -> str | None:
    """What the check value is bound to: the session's token, else the pre-login cookie (None: neither)."""
    token = token_of(request)
    if token:
        return "session:" + token
    pre = (request.cookies.get(PRE_COOKIE) or "").strip()
    return "pre:" + pre if pre else None


def set_pre_login(response: Response, request: Request, pre: str) -> None:
    """The pre-login cookie (``pre``: a random value) the login form's check value is bound to."""
    response.set_cookie(PRE_COOKIE, pre, httponly=True, samesite="strict", path="/desk",
                        secure=request.url.scheme == "https", max_age=3600)


def csrf_value(basis: str) -> str:
    return hmac.new(_KEY, basis.encode("utf-8"), hashlib.sha256).hexdigest()


_POST_FORM = re.compile(r'(<form\b[^>]*\bmethod="post"[^>]*>)', re.I)


def with_csrf(html: str, basis: str | None) -> str:
    """``html`` with the check value as a hidden field first in every POST form (unchanged when no basis)."""
    if not basis:
        return html
    field = f'<input type="hidden" name="{CSRF_FIELD}" value="{csrf_value(basis)}">'
    return _POST_FORM.sub(lambda m: m.group(1) + field, html)


def csrf_refusal(request: Request, form: Mapping[str, Any]) -> str | None:
    """Why a POSTed form is refused (its check value missing or not the session's), in words; None when it fits."""
    sent = form.get(CSRF_FIELD)
    sent = sent.strip() if isinstance(sent, str) else ""
    if not sent:
        return ("The form came without its check value, which every form of the desk carries, so it was not acted "
                "on (a form another site built looks like this). Reload the desk's page and send it from there.")
    basis = csrf_basis(request)
    if basis is None or not hmac.compare_digest(sent, csrf_value(basis)):
        return ("The form's check value does not belong to your session, so it was not acted on: the page is "
                "older than your last sign-in or than the server's restart, or another site built the form. "
                "Reload the desk's page and send it again.")
    return None
