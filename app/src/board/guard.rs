//! Who may use the board. A local web server can be reached by every web page the person
//! visits (a form posted to 127.0.0.1, a DNS name rebound to 127.0.0.1); the guard lets through
//! only requests that
//! - name the address the board is bound to in their Host header (`127.0.0.1:PORT`,
//!   `localhost:PORT`, `[::1]:PORT`, or the `--host` given): a rebound name is refused, 421;
//! - carry the session cookie, which only the printed URL's secret token gets: without it, 401
//!   (the token is exchanged for the cookie, `HttpOnly; SameSite=Strict`, and the browser sent
//!   on to the same page without it, so it leaves no trace in the address bar or history);
//! - and, for a POST (every change), come from the board's own pages: an `Origin` equal to the
//!   board's, and `Sec-Fetch-Site`, when sent, `same-origin`; otherwise 403. With the strict
//!   cookie this is the CSRF defence: a cross-site form is refused by both.
//!
//! Every response, refusals included, carries a strict Content-Security-Policy (nothing but
//! the board's own script and stylesheet, no frames), `nosniff`, no caching, and a referrer for
//! the board itself only (`same-origin`: with `no-referrer` Chromium sends `Origin: null` on the
//! board's own form posts, which the Origin check must then refuse).

use std::net::SocketAddr;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

use super::{Board, pages};
use crate::commands::Failure;

/// What every response says about how it may be used.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; \
                       form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// The secrets of one run and the names it answers to.
pub struct Guard {
    /// In the printed URL; exchanged for the cookie.
    token: String,
    /// The cookie's value.
    session: String,
    /// `name=value`'s name: with the port, so two boards on one machine keep their own.
    cookie_name: String,
    /// The Host headers accepted, lower case.
    hosts: Vec<String>,
    /// The URL printed, without the token.
    base: String,
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard").field("hosts", &self.hosts).finish_non_exhaustive()
    }
}

/// 32 random bytes from the operating system, as hex.
fn secret() -> Result<String, Failure> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| Failure::failed(miette::miette!("could not get random bytes for the board's secret: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

impl Guard {
    /// `host`: as given to `--host`; `addr`: where the listener is bound.
    pub fn new(host: &str, addr: SocketAddr) -> Result<Guard, Failure> {
        let port = addr.port();
        let mut hosts = vec![format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}")];
        let bound = match addr.ip() {
            std::net::IpAddr::V6(ip) => format!("[{ip}]:{port}"),
            std::net::IpAddr::V4(ip) => format!("{ip}:{port}"),
        };
        let named = if host.contains(':') && !host.starts_with('[') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        for h in [bound.clone(), named.to_ascii_lowercase()] {
            if !hosts.contains(&h) {
                hosts.push(h);
            }
        }
        let shown = if addr.ip().is_loopback() && host.eq_ignore_ascii_case("localhost") { named } else { bound };
        Ok(Guard {
            token: secret()?,
            session: secret()?,
            cookie_name: format!("vitaecontext_board_{port}"),
            hosts,
            base: format!("http://{shown}/"),
        })
    }

    pub fn base_url(&self) -> &str {
        &self.base
    }

    pub fn login_url(&self) -> String {
        format!("{}?token={}", self.base, self.token)
    }

    fn host_ok(&self, headers: &HeaderMap) -> Option<String> {
        let host = headers.get(header::HOST)?.to_str().ok()?.to_ascii_lowercase();
        self.hosts.contains(&host).then_some(host)
    }

    fn has_session(&self, headers: &HeaderMap) -> bool {
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|c| c.trim().split_once('='))
            .any(|(name, value)| name == self.cookie_name && same(value, &self.session))
    }
}

/// Compares secrets in time independent of where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The token of `?token=...`, if the query has one.
fn token_of(query: Option<&str>) -> Option<&str> {
    query?.split('&').find_map(|kv| kv.strip_prefix("token="))
}

/// The middleware in front of every route.
pub async fn check(State(board): State<Arc<Board>>, request: Request, next: Next) -> Response {
    let response = decide(&board.guard, request, next).await;
    harden(response)
}

async fn decide(guard: &Guard, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let Some(host) = guard.host_ok(headers) else {
        return pages::error_page(
            StatusCode::MISDIRECTED_REQUEST,
            "Wrong address",
            "This request named another host than the one the board listens on. Open the board with the address printed in the terminal.",
        );
    };
    if request.method() == Method::POST {
        let origin_ok =
            headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) == Some(format!("http://{host}").as_str());
        let site_ok = headers.get("sec-fetch-site").is_none_or(|s| s.as_bytes() == b"same-origin");
        if !origin_ok || !site_ok {
            return pages::error_page(
                StatusCode::FORBIDDEN,
                "Refused: not from the board",
                "A change must be sent from the board's own pages. Nothing was changed.",
            );
        }
    } else if request.method() != Method::GET && request.method() != Method::HEAD {
        return pages::error_page(
            StatusCode::METHOD_NOT_ALLOWED,
            "Not allowed",
            "The board answers GET and POST only.",
        );
    }
    if let Some(token) = token_of(request.uri().query()) {
        if !same(token, &guard.token) {
            return pages::error_page(
                StatusCode::UNAUTHORIZED,
                "Wrong token",
                "This link's token is not this board's. Open the address printed in the terminal that runs `vitaecontext board`.",
            );
        }
        let cookie = format!("{}={}; HttpOnly; SameSite=Strict; Path=/", guard.cookie_name, guard.session);
        let mut response =
            (StatusCode::SEE_OTHER, [(header::LOCATION, request.uri().path().to_owned())]).into_response();
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            response.headers_mut().insert(header::SET_COOKIE, v);
        }
        return response;
    }
    if !guard.has_session(headers) {
        return pages::error_page(
            StatusCode::UNAUTHORIZED,
            "Open the board with its link",
            "The board only answers the browser that opened the address printed in the terminal (it ends with ?token=...). Open that address.",
        );
    }
    next.run(request).await
}

fn harden(mut response: Response) -> Response {
    let h = response.headers_mut();
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert("cross-origin-opener-policy", HeaderValue::from_static("same-origin"));
    h.insert("cross-origin-resource-policy", HeaderValue::from_static("same-origin"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_found_among_other_parameters_and_compared_whole() {
        assert_eq!(token_of(Some("a=1&token=abc")), Some("abc"));
        assert_eq!(token_of(None), None);
        assert!(same("abc", "abc"));
        assert!(!same("abc", "abd"));
        assert!(!same("abc", "ab"));
    }

    #[test]
    fn the_hosts_accepted_are_the_bound_port_only() {
        let g = Guard::new("127.0.0.1", "127.0.0.1:5417".parse().unwrap()).unwrap();
        let with = |h: &str| {
            let mut m = HeaderMap::new();
            m.insert(header::HOST, HeaderValue::from_str(h).unwrap());
            g.host_ok(&m)
        };
        assert!(with("127.0.0.1:5417").is_some());
        assert!(with("LOCALHOST:5417").is_some());
        assert!(with("localhost:5418").is_none());
        assert!(with("evil.example:5417").is_none());
        assert!(with("127.0.0.1").is_none());
        assert_ne!(g.token, g.session);
        assert_eq!(g.token.len(), 64);
    }
}
