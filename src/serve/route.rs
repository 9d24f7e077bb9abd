//! A route: what a feature says once to be served. The paths it takes, how
//! metrics name it, what it answers (JSON, a page, or either as the client
//! prefers), and how a request becomes its [`Job`]: every refusal found first,
//! then the work, with what it costs and the headers its answer will have.
//!
//! How a route is found is its [`Routing`]. The table of routes
//! (`routes::ROUTES`) drives matching, dispatch, metrics, `HEAD` and
//! `If-None-Match`; the dispatcher (`router`) only reads it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::export::openapi::{self, Describe};
use crate::model::Endpoint;

use super::answer::Answer;
use super::asked::Asked;
use super::routing::Routing;
use super::state::{Served, State};
use super::work::Task;
use crate::view::View;

/// A future answer, borrowing the request it answers.
pub type Later<'a> = Pin<Box<dyn Future<Output = Answer> + Send + 'a>>;

/// Reads a request into its work, or the answer that refuses it.
pub type Parse = for<'a> fn(Ctx<'a>) -> Parsed<'a>;

/// A request read into its work, or the answer that refuses it (boxed: a
/// refusal is the rarer way out).
pub type Parsed<'a> = Result<Job<'a>, Box<Answer>>;

/// What a route's `parse` reads: the server, the view the request loaded, the
/// request.
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    pub state: &'a Arc<State>,
    pub served: &'a Arc<Served>,
    pub asked: &'a Asked,
}

impl Ctx<'_> {
    /// The list the path named (a route with a `Seg::List` segment).
    pub fn list(&self) -> Result<Endpoint, Box<Answer>> {
        self.asked.list().ok_or_else(|| Answer::not_found().into())
    }

    /// The identifier the path named (a route with a `Seg::Id` segment).
    pub fn id(&self) -> Result<&str, Box<Answer>> {
        self.asked.id().ok_or_else(|| Answer::not_found().into())
    }
}

/// What answering a request costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    /// Cut from bytes already made, or a small document: made for a `HEAD`
    /// too, so its length is said.
    Cheap,
    /// Work on the pool's threads: a `HEAD` gets the answer's headers without
    /// it (and without a length).
    Pool,
    /// Work on the pool's threads that is a copy of bytes already made (a long
    /// slice of a list made of fragments, made whole to be compressed): made
    /// for a `HEAD` too, as the slice it replaces was, so that its headers
    /// name the coding the `GET` is sent in.
    MadeWhole,
}

/// The headers a request's successful answer will have, as `HEAD` (of work
/// on the pool) and a revalidation that names its tag are answered.
// A job lives for one request, on its task: boxing the answer it holds would
// allocate on the hot path for nothing.
#[allow(clippy::large_enum_variant)]
pub enum Head<'a> {
    /// Known without making the answer (a body not made, `Answer::unmade`).
    Known(Answer),
    /// Known once the request is checked against the view on the pool (a
    /// refusal that needs the view's derived data): the refusal, or the
    /// headers.
    Checked(Later<'a>),
    /// Only the answer made says them: `HEAD` and a revalidation make it, and
    /// `finish` answers 304 from its tag.
    Made,
}

/// How a request is answered, once its refusals are found.
#[allow(clippy::large_enum_variant)]
pub enum Run<'a> {
    /// Made already (cheaply, while parsing).
    Ready(Answer),
    /// Made when awaited (on the pool, or streamed).
    Later(Later<'a>),
}

/// A request read and checked: its cost, its headers, and its answer to make.
pub struct Job<'a> {
    pub cost: Cost,
    pub head: Head<'a>,
    pub run: Run<'a>,
}

impl<'a> Job<'a> {
    /// An answer made while parsing: cheap, its headers said by itself.
    pub fn ready(answer: Answer) -> Job<'a> {
        Job {
            cost: Cost::Cheap,
            head: Head::Made,
            run: Run::Ready(answer),
        }
    }

    /// A cheap answer made already, with the headers it has when not made
    /// (a revalidation that names its tag is answered with them).
    pub fn cheap(head: Answer, answer: Answer) -> Job<'a> {
        Job {
            cost: Cost::Cheap,
            head: Head::Known(head),
            run: Run::Ready(answer),
        }
    }

    /// A cheap answer made when awaited (a file read): made for `HEAD` too.
    pub fn awaited(run: impl Future<Output = Answer> + Send + 'a) -> Job<'a> {
        Job {
            cost: Cost::Cheap,
            head: Head::Made,
            run: Run::Later(Box::pin(run)),
        }
    }

    /// A copy made on the pool ([`Cost::MadeWhole`]), with the headers its answer
    /// will have for a revalidation that names its tag.
    pub fn made_whole(head: Answer, run: impl Future<Output = Answer> + Send + 'a) -> Job<'a> {
        Job {
            cost: Cost::MadeWhole,
            head: Head::Known(head),
            run: Run::Later(Box::pin(run)),
        }
    }

    /// Work on the pool, with the headers its answer will have.
    pub fn pooled(head: Answer, run: impl Future<Output = Answer> + Send + 'a) -> Job<'a> {
        Job {
            cost: Cost::Pool,
            head: Head::Known(head),
            run: Run::Later(Box::pin(run)),
        }
    }

    /// An answer `make` makes from the view: where the request is read when
    /// what it needs is `ready` (derived already), else on the pool, which
    /// derives it (503 when busy), `head` saying its headers meanwhile.
    pub fn from_view(
        ctx: Ctx<'a>,
        ready: bool,
        head: Answer,
        make: impl FnOnce(&View) -> Answer + Send + 'static,
    ) -> Job<'a> {
        if ready {
            return Job::ready(make(&ctx.served.view));
        }
        let (state, served) = (ctx.state, ctx.served.clone());
        Job::pooled(head, async move {
            let made = state.work.run(Task::Answer, move || make(&served.view));
            made.await.unwrap_or_else(Answer::busy)
        })
    }

    /// Work on the pool whose tag is its content's digest: `HEAD` and a
    /// revalidation make it too, to say the tag the `GET` says.
    pub fn digested(run: impl Future<Output = Answer> + Send + 'a) -> Job<'a> {
        Job {
            cost: Cost::Pool,
            head: Head::Made,
            run: Run::Later(Box::pin(run)),
        }
    }

    /// Work on the pool whose refusals are found only against the view
    /// (`check`, on the pool too): `HEAD` runs the check, not the work.
    pub fn checked(
        check: impl Future<Output = Answer> + Send + 'a,
        run: impl Future<Output = Answer> + Send + 'a,
    ) -> Job<'a> {
        Job {
            cost: Cost::Pool,
            head: Head::Checked(Box::pin(check)),
            run: Run::Later(Box::pin(run)),
        }
    }
}

impl<'a> Job<'a> {
    /// The job, its answer (whichever is given: the headers or the whole)
    /// passed through `f` (a header every answer of the request says).
    pub fn map_answers(self, f: impl Fn(Answer) -> Answer + Send + Sync + 'a) -> Job<'a> {
        let f = Arc::new(f);
        let head = match self.head {
            Head::Known(a) => Head::Known(f(a)),
            Head::Checked(check) => {
                let f = f.clone();
                Head::Checked(Box::pin(async move { f(check.await) }))
            }
            Head::Made => Head::Made,
        };
        let run = match self.run {
            Run::Ready(a) => Run::Ready(f(a)),
            Run::Later(run) => Run::Later(Box::pin(async move { f(run.await) })),
        };
        Job {
            cost: self.cost,
            head,
            run,
        }
    }
}

/// A feature's entry in the table: how it is found, and its handlers.
pub struct Route {
    pub routing: Routing,
    /// The answer for programs (and for pages where `page` is `None`).
    pub json: Parse,
    /// The answer for people, where it differs.
    pub page: Option<Parse>,
    /// Its operations in the OpenAPI document (`None`: not described, as
    /// health checks, assets and pages are not).
    pub openapi: Option<Describe>,
}

impl Route {
    /// The route, also taking its parameters as a form POSTed to its path.
    pub const fn taking_forms(mut self) -> Route {
        self.routing.takes = super::routing::Takes::QueryOrForm;
        self
    }
}

/// The OpenAPI document of the routes of `routes` that describe themselves, in
/// the table's order, for a server that caps `limit` at `max_limit`.
pub fn document(routes: &[Route], max_limit: Option<usize>) -> serde_json::Value {
    let forms = |r: &Route| match r.routing.takes {
        super::routing::Takes::Query => openapi::Forms::Query,
        super::routing::Takes::QueryOrForm => openapi::Forms::QueryOrForm,
    };
    let described = routes.iter().filter_map(|r| Some((r.openapi?, forms(r))));
    openapi::document(max_limit, described)
}
