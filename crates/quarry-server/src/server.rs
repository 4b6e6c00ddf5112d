//! The server's state and main loop. Messages are handled as they come;
//! when none is waiting, the next batch of files marked dirty is analysed
//! (open documents first, in parallel), and their diagnostics published.
//! So a burst of edits is applied before any analysis, and a request
//! cancelled, or made stale by a later edit of its document, before it is
//! reached is answered as such. A message arriving while a batch of
//! unopened files runs cancels that batch ([`crate::batch`]; the files stay
//! dirty), so an edit or a request waits for little more than the check
//! each analysis makes between its steps; an edit of a document being
//! analysed cancels that analysis. Each file is bounded by the
//! configuration's per-file time budget and size limit. A hover or a code
//! action on an open document edited since its diagnostics were published
//! waits for its analysis, so that it is answered from positions in its
//! current text.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TryRecvError};
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{
    notification, request, CodeActionKind, CodeActionOptions, CodeActionOrCommand, CodeActionParams,
    CodeActionProviderCapability, Diagnostic, DidChangeTextDocumentParams, DidChangeWatchedFilesParams,
    DidChangeWatchedFilesRegistrationOptions, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
    DidSaveTextDocumentParams, FileChangeType, FileSystemWatcher, GlobPattern, HoverParams, HoverProviderCapability,
    InitializeParams, InitializeResult, LogMessageParams, MessageType, PublishDiagnosticsParams, Registration,
    RegistrationParams, SaveOptions, ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextDocumentSyncOptions, TextDocumentSyncSaveOptions, Uri,
};
use quarry_query::cache::run::CacheView;
use quarry_query::project::{ModuleId, Project};
use quarry_query::report::FileReport;
use quarry_query::run::RunOptions;
use quarry_syntax::corpus::source_files_excluding;
use quarry_syntax::{Language, SyntaxError};
use quarry_workspace::config::is_config_file;
use quarry_workspace::folder::Resolved;
use quarry_workspace::triage::Policy;

use crate::dependants::ImportGraph;
use crate::text::{Encoding, Text};
use crate::transport::{Incoming, Outgoing};
use crate::{actions, batch, diagnostics, hover, uri};

/// Files of the workspace analysed together when no open document waits,
/// per worker thread: small, so that an edit waits for little work.
const BATCH_PER_THREAD: usize = 2;

/// How long after the last edit of an open document the files it affects
/// wait before their analysis starts: while the user types, the worker
/// threads are left to the edited document itself.
const QUIET_AFTER_EDIT: Duration = Duration::from_millis(250);

/// An open document.
struct Document {
    uri: Uri,
    version: i32,
    text: Text,
    /// The diagnostics last published for it are of its current text (so
    /// their ranges are positions in it).
    current: bool,
}

/// How the main loop ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Ending {
    /// `exit` after `shutdown`.
    Clean,
    /// `exit` without `shutdown`, or the input closed.
    Abrupt,
}

/// The language server.
pub struct Server {
    /// Where what the server sends goes.
    out: Sender<Outgoing>,
    incoming: Receiver<Incoming>,
    /// Messages read ahead (to see cancellations and later edits).
    pending: VecDeque<Message>,
    root: Option<PathBuf>,
    config: Resolved,
    documents: HashMap<PathBuf, Document>,
    /// The project's files: the workspace's Python files and the open ones.
    files: Vec<PathBuf>,
    project: Project,
    /// Which modules of the project import which.
    imports: ImportGraph,
    /// The analysis cache beside the configuration, when it can be opened.
    cache: Option<quarry_query::cache::AnalysisCache>,
    /// The cache as the project of the last [`Server::rebuild_project`]
    /// sees it, for unopened files; told of each module whose text changes.
    /// `None` after a file joined the project, until unopened files are
    /// analysed next ([`Server::add_to_project`]).
    cache_view: Option<CacheView>,
    /// The project before files joined it without a rebuild, while the
    /// files whose imports that changes are yet to be found
    /// ([`Server::refresh_importers`]).
    before_added: Option<Project>,
    /// Files analysed again because files joined the project, whose next
    /// findings must not come from the cache: its entries are keyed by the
    /// modules a file imports, not by what the names it imports stand for
    /// (a name that now stands for the file itself changes no key).
    not_from_cache: HashSet<PathBuf>,
    /// Open documents edited since the project last took their text.
    stale: HashSet<PathBuf>,
    dirty: VecDeque<PathBuf>,
    dirty_set: HashSet<PathBuf>,
    /// What other modules saw of an edited module before its edit.
    summary_before: HashMap<PathBuf, String>,
    published: HashMap<PathBuf, Vec<Diagnostic>>,
    /// When an open document's text last changed.
    last_edit: Option<Instant>,
    /// What the columns of positions count, as negotiated at `initialize`.
    encoding: Encoding,
    shutdown: bool,
}

impl Server {
    /// Waits for `initialize`, answers it and returns the server; `None`
    /// when the client exits or the input closes first. What the server
    /// sends goes to `out`.
    pub fn initialize(out: Sender<Outgoing>, incoming: Receiver<Incoming>) -> Option<Server> {
        let (id, params) = loop {
            match incoming.recv().ok()? {
                Incoming::Message(Message::Request(req)) if req.method == request::Initialize::METHOD => {
                    match serde_json::from_value::<InitializeParams>(req.params) {
                        Ok(params) => break (req.id, params),
                        Err(e) => send_error(&out, req.id, ErrorCode::InvalidParams, e.to_string()),
                    }
                }
                Incoming::Message(Message::Request(req)) => {
                    send_error(&out, req.id, ErrorCode::ServerNotInitialized, "not initialized yet".into())
                }
                Incoming::Message(Message::Notification(n)) if n.method == notification::Exit::METHOD => return None,
                // Answered before `initialize` too: JSON-RPC asks for it.
                Incoming::Refused { answer, .. } => {
                    let _ = out.send(Outgoing::Raw(answer));
                }
                _ => {}
            }
        };
        let root = root_folder(&params);
        let offered = params.capabilities.general.as_ref().and_then(|g| g.position_encodings.as_deref());
        let encoding = Encoding::negotiate(offered);
        let result = InitializeResult {
            capabilities: capabilities(encoding),
            server_info: Some(ServerInfo { name: "quarry".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
        };
        let _ = out.send(Response::new_ok(id, result).into());
        let folder = root.clone().unwrap_or_else(|| std::env::current_dir().unwrap_or_default());
        let mut server = Server {
            out,
            incoming,
            pending: VecDeque::new(),
            config: Resolved::defaults(&folder),
            root,
            documents: HashMap::new(),
            files: Vec::new(),
            project: Project::new(&[], &Default::default()),
            imports: ImportGraph::default(),
            cache: None,
            cache_view: None,
            before_added: None,
            not_from_cache: HashSet::new(),
            stale: HashSet::new(),
            dirty: VecDeque::new(),
            dirty_set: HashSet::new(),
            summary_before: HashMap::new(),
            published: HashMap::new(),
            last_edit: None,
            encoding,
            shutdown: false,
        };
        let watch = params
            .capabilities
            .workspace
            .and_then(|w| w.did_change_watched_files)
            .and_then(|w| w.dynamic_registration)
            .unwrap_or(false);
        if watch {
            server.register_watchers();
        }
        server.load_configuration(false);
        Some(server)
    }

    /// Runs until `exit` or the end of input.
    pub fn run(mut self) -> Ending {
        loop {
            let message = match self.next_message() {
                Some(Some(message)) => message,
                Some(None) => {
                    self.analyse_next_batch();
                    continue;
                }
                None => return Ending::Abrupt,
            };
            match message {
                Message::Request(req) => self.on_request(req),
                Message::Notification(n) if n.method == notification::Exit::METHOD => {
                    return if self.shutdown { Ending::Clean } else { Ending::Abrupt };
                }
                Message::Notification(n) => self.on_notification(n),
                Message::Response(_) => {}
            }
        }
    }

    /// The next message: `Some(None)` when none waits and there is
    /// analysis to do; `None` when the input is closed.
    fn next_message(&mut self) -> Option<Option<Message>> {
        loop {
            if let Some(message) = self.pending.pop_front() {
                return Some(Some(message));
            }
            let idle = self.dirty.is_empty() && self.before_added.is_none();
            let incoming = if idle || self.shutdown {
                self.incoming.recv().ok()?
            } else if let Some(wait) = self.background_delay() {
                match self.incoming.recv_timeout(wait) {
                    Ok(incoming) => incoming,
                    Err(RecvTimeoutError::Timeout) => return Some(None),
                    Err(RecvTimeoutError::Disconnected) => return None,
                }
            } else {
                match self.incoming.try_recv() {
                    Ok(incoming) => incoming,
                    Err(TryRecvError::Empty) => return Some(None),
                    Err(TryRecvError::Disconnected) => return None,
                }
            };
            if let Some(message) = self.take(incoming) {
                return Some(Some(message));
            }
        }
    }

    /// The message `incoming` holds; what holds none is logged, and
    /// answered when JSON-RPC asks for an answer.
    fn take(&mut self, incoming: Incoming) -> Option<Message> {
        match incoming {
            Incoming::Message(message) => return Some(message),
            Incoming::Malformed(reason) => self.log(MessageType::ERROR, format!("quarry: skipped a message: {reason}")),
            Incoming::Refused { reason, answer } => {
                let _ = self.out.send(Outgoing::Raw(answer));
                self.log(MessageType::ERROR, format!("quarry: refused a message (answered with an error): {reason}"));
            }
        }
        None
    }

    /// How long the dirty files wait yet: only files that are not open wait,
    /// until [`QUIET_AFTER_EDIT`] has passed since the last edit.
    fn background_delay(&self) -> Option<Duration> {
        let left = QUIET_AFTER_EDIT.checked_sub(self.last_edit?.elapsed())?;
        let open_waits = self.dirty.iter().any(|p| self.documents.contains_key(p));
        (!open_waits && !left.is_zero()).then_some(left)
    }

    /// Reads every message already waiting into `pending`.
    fn read_ahead(&mut self) {
        while let Ok(incoming) = self.incoming.try_recv() {
            if let Some(message) = self.take(incoming) {
                self.pending.push_back(message);
            }
        }
    }

    fn on_request(&mut self, req: Request) {
        self.read_ahead();
        if self.is_cancelled(&req.id) {
            return send_error(&self.out, req.id, ErrorCode::RequestCanceled, "cancelled".into());
        }
        if self.shutdown {
            return send_error(&self.out, req.id, ErrorCode::InvalidRequest, "the server is shutting down".into());
        }
        let id = req.id.clone();
        let result = match req.method.as_str() {
            request::Shutdown::METHOD => {
                self.shutdown = true;
                Ok(serde_json::Value::Null)
            }
            request::HoverRequest::METHOD => decode::<HoverParams>(req.params).and_then(|params| {
                let at = params.text_document_position_params;
                self.settle(&at.text_document.uri)?;
                Ok(serde_json::to_value(self.hover(&at.text_document.uri, at.position)).unwrap_or_default())
            }),
            request::CodeActionRequest::METHOD => decode::<CodeActionParams>(req.params).and_then(|params| {
                self.settle(&params.text_document.uri)?;
                Ok(serde_json::to_value(self.code_actions(&params)).unwrap_or_default())
            }),
            request::Initialize::METHOD => Err((ErrorCode::InvalidRequest, "initialize was already received".into())),
            other => Err((ErrorCode::MethodNotFound, format!("quarry does not handle `{other}`"))),
        };
        let response = match result {
            Ok(value) => Response::new_ok(id, value),
            Err((code, message)) => Response::new_err(id, code as i32, message),
        };
        let _ = self.out.send(response.into());
    }

    fn is_cancelled(&mut self, id: &RequestId) -> bool {
        let at = self.pending.iter().position(|m| match m {
            Message::Notification(n) if n.method == notification::Cancel::METHOD => {
                serde_json::from_value::<lsp_types::CancelParams>(n.params.clone()).is_ok_and(|c| match c.id {
                    lsp_types::NumberOrString::Number(n) => RequestId::from(n) == *id,
                    lsp_types::NumberOrString::String(s) => RequestId::from(s) == *id,
                })
            }
            _ => false,
        });
        at.and_then(|at| self.pending.remove(at)).is_some()
    }

    /// Makes the diagnostics of `uri` those of its current text before a
    /// request about it is answered from them: an open document edited
    /// since its last publication is analysed first (the dirty open
    /// documents are, as the main loop would next). `ContentModified` when
    /// an edit of it waits behind the request, or arrived meanwhile.
    fn settle(&mut self, uri: &Uri) -> Result<(), (ErrorCode, String)> {
        self.modified_since(uri)?;
        let Some(path) = uri::to_path(uri) else { return Ok(()) };
        let behind = |server: &Server| server.documents.get(&path).is_some_and(|d| !d.current);
        if behind(self) && self.dirty_set.contains(&path) {
            self.analyse_next_batch();
            self.modified_since(uri)?;
        }
        if behind(self) {
            return Err((ErrorCode::ContentModified, "the document changed".into()));
        }
        Ok(())
    }

    /// `ContentModified` when an edit of `uri` waits behind the request.
    fn modified_since(&self, uri: &Uri) -> Result<(), (ErrorCode, String)> {
        let edited = self.pending.iter().any(|m| match m {
            Message::Notification(n) if n.method == notification::DidChangeTextDocument::METHOD => {
                n.params.pointer("/textDocument/uri").and_then(|u| u.as_str()) == Some(uri.as_str())
            }
            _ => false,
        });
        if edited {
            return Err((ErrorCode::ContentModified, "the document changed".into()));
        }
        Ok(())
    }

    fn on_notification(&mut self, n: Notification) {
        match n.method.as_str() {
            notification::DidOpenTextDocument::METHOD => {
                if let Some(params) = self.params::<DidOpenTextDocumentParams>(n) {
                    let doc = params.text_document;
                    let Some(path) = self.path_of(&doc.uri) else { return };
                    let text = Text::new(doc.text, self.encoding);
                    let document = Document { uri: doc.uri, version: doc.version, text, current: false };
                    self.documents.insert(path.clone(), document);
                    self.edited(&path);
                }
            }
            notification::DidChangeTextDocument::METHOD => {
                if let Some(params) = self.params::<DidChangeTextDocumentParams>(n) {
                    let Some(path) = self.path_of(&params.text_document.uri) else { return };
                    let Some(document) = self.documents.get_mut(&path) else { return };
                    document.version = params.text_document.version;
                    document.text.apply(params.content_changes);
                    document.current = false;
                    self.edited(&path);
                }
            }
            notification::DidCloseTextDocument::METHOD => {
                if let Some(params) = self.params::<DidCloseTextDocumentParams>(n) {
                    let Some(path) = self.path_of(&params.text_document.uri) else { return };
                    if self.documents.remove(&path).is_some() {
                        self.stale.remove(&path);
                        self.reread_from_disk(&path);
                    }
                }
            }
            notification::DidSaveTextDocument::METHOD => {
                if let Some(params) = self.params::<DidSaveTextDocumentParams>(n) {
                    if self.path_of(&params.text_document.uri).is_some_and(|p| is_config_file(&p)) {
                        self.load_configuration(true);
                    }
                }
            }
            notification::DidChangeWatchedFiles::METHOD => {
                if let Some(params) = self.params::<DidChangeWatchedFilesParams>(n) {
                    self.on_watched_files(params);
                }
            }
            // Cancellations of requests already answered, and the rest.
            _ => {}
        }
    }

    /// A notification's parameters; parameters that do not decode are
    /// logged (the notification is ignored: nothing can be answered).
    fn params<P: serde::de::DeserializeOwned>(&self, n: Notification) -> Option<P> {
        match serde_json::from_value(n.params) {
            Ok(params) => Some(params),
            Err(error) => {
                self.log(MessageType::ERROR, format!("quarry: ignored `{}`: invalid parameters: {error}", n.method));
                None
            }
        }
    }

    fn on_watched_files(&mut self, params: DidChangeWatchedFilesParams) {
        let mut reload = false;
        for change in params.changes {
            let Some(path) = uri::to_path(&change.uri) else { continue };
            if is_config_file(&path) {
                reload = true;
            } else if !self.documents.contains_key(&path) && path.extension().is_some_and(|e| e == "py") {
                match change.typ {
                    FileChangeType::CHANGED => self.reread_from_disk(&path),
                    _ => reload = true,
                }
            }
        }
        if reload {
            self.load_configuration(true);
        }
    }

    /// The path of a document; non-`file:` documents are not analysed.
    fn path_of(&mut self, uri: &Uri) -> Option<PathBuf> {
        let path = uri::to_path(uri);
        if path.is_none() {
            self.log(MessageType::INFO, format!("quarry: {} is not a file: not analysed", uri.as_str()));
        }
        path
    }

    /// An open document's text changed: analysed first, on its unsaved text.
    fn edited(&mut self, path: &Path) {
        if !self.files.iter().any(|f| f == path) {
            self.files.push(path.to_path_buf());
            self.add_to_project();
        }
        self.remember_summary(path);
        self.last_edit = Some(Instant::now());
        self.stale.insert(path.to_path_buf());
        self.mark_dirty(path);
    }

    /// A file is to be read from disk again (closed, or changed on disk).
    fn reread_from_disk(&mut self, path: &Path) {
        if !path.is_file() {
            // Deleted (while open, or not): gone from the project.
            self.files.retain(|f| f != path);
            self.publish(path, Vec::new(), None);
            self.published.remove(path);
            self.rebuild_project();
            return;
        }
        self.remember_summary(path);
        self.project = self.project.edited(path, None);
        self.forget_in_cache(path);
        self.mark_dirty(path);
    }

    /// Keeps what other modules saw of `path` before its first edit since
    /// it was last analysed, to refresh them if that changes.
    fn remember_summary(&mut self, path: &Path) {
        if self.summary_before.contains_key(path) {
            return;
        }
        let known = self.project.module_of(path).and_then(|m| self.project.summary_if_read(m));
        if let Some(summary) = known {
            self.summary_before.insert(path.to_path_buf(), summary.stable_text());
        }
    }

    fn mark_dirty(&mut self, path: &Path) {
        if self.dirty_set.insert(path.to_path_buf()) {
            self.dirty.push_back(path.to_path_buf());
        }
    }

    /// Reads the configuration again (at start, or when a configuration
    /// file changed), walks the workspace and marks every file dirty. A bad
    /// configuration is logged and the one before kept.
    fn load_configuration(&mut self, reload: bool) {
        let folder = self.root.clone().unwrap_or_else(|| std::env::current_dir().unwrap_or_default());
        match Resolved::discover(&folder) {
            Ok(config) => {
                if reload {
                    let from = config
                        .file
                        .as_ref()
                        .map_or("the defaults (no configuration file)".into(), |f| f.display().to_string());
                    self.log(MessageType::INFO, format!("quarry: configuration reloaded from {from}"));
                }
                self.config = config;
                self.open_cache();
            }
            Err(error) => self
                .log(MessageType::ERROR, format!("quarry: bad configuration, keeping the previous settings: {error}")),
        }
        let mut files = match &self.root {
            Some(root) => {
                let (files, errors) =
                    source_files_excluding(std::slice::from_ref(root), Language::Python, &self.config.exclude);
                for error in errors {
                    self.log(MessageType::WARNING, format!("quarry: {error}"));
                }
                files
            }
            None => Vec::new(),
        };
        for path in self.documents.keys() {
            if !files.contains(path) {
                files.push(path.clone());
            }
        }
        self.files = files;
        self.rebuild_project();
        for path in self.published.keys().cloned().collect::<Vec<_>>() {
            if !self.files.contains(&path) {
                self.publish(&path, Vec::new(), None);
                self.published.remove(&path);
            }
        }
    }

    /// Tells the cache view that the text of `path` changed.
    fn forget_in_cache(&mut self, path: &Path) {
        if let (Some(view), Some(module)) = (self.cache_view.as_mut(), self.project.module_of(path)) {
            view.forget(module);
        }
    }

    /// Opens the analysis cache beside the configuration (`quarry query`'s);
    /// one that cannot be opened is logged and not used.
    fn open_cache(&mut self) {
        self.cache = match quarry_workspace::cache_dir::open(&self.config.root) {
            Ok(cache) => Some(cache),
            Err(error) => {
                self.log(MessageType::WARNING, format!("quarry: no analysis cache: {error}"));
                None
            }
        };
    }

    /// A new project over `files` (the file set changed): every file is
    /// analysed again, open documents first.
    fn rebuild_project(&mut self) {
        let overlays = self.documents.iter().map(|(p, d)| (p.clone(), Arc::from(d.text.as_str()))).collect();
        self.project = Project::with_overlays(&self.files, &self.config.load, overlays);
        self.make_cache_view();
        self.before_added = None;
        self.imports.clear();
        self.stale.clear();
        self.summary_before.clear();
        self.dirty.clear();
        self.dirty_set.clear();
        for path in self.files.clone() {
            self.mark_dirty(&path);
        }
    }

    /// The cache view of the current project (none without a cache).
    fn make_cache_view(&mut self) {
        self.cache_view = self.cache.as_ref().map(|cache| {
            let options = RunOptions {
                queries: self.config.queries.clone(),
                polarities: vec![quarry_query::Polarity::Positive],
                load: self.config.load,
                limits: self.config.limits,
                chunk: 1,
            };
            CacheView::new(&self.project, &self.files, &options, cache)
        });
    }

    /// The last of `files` (an open document new to the project: outside
    /// the workspace folder, or created in it) joins the project without
    /// a rebuild, so that its diagnostics wait for its own analysis only:
    /// the modules keep their ids and the summaries read so far
    /// (`Project::with_files_added`), and nothing is analysed again here
    /// but the files added earlier while their importers are yet to be
    /// found (their analysis saw the project without this one). Once the
    /// open documents are done, [`Server::refresh_importers`] marks dirty
    /// the files that the new modules change; the cache view, which knows
    /// the old modules only, is made again before unopened files are
    /// analysed.
    fn add_to_project(&mut self) {
        let overlays = self.documents.iter().map(|(p, d)| (p.clone(), Arc::from(d.text.as_str()))).collect();
        let known = self.project.modules().len();
        let project = self.project.with_files_added(&self.files[known..], overlays);
        // Compared with the project of the published diagnostics: the first one files were added to.
        let before = std::mem::replace(&mut self.project, project);
        let first_added = self.before_added.get_or_insert(before).modules().len();
        for earlier in first_added..known {
            let earlier = self.project.modules().path(ModuleId::new(earlier)).to_path_buf();
            self.not_from_cache.insert(earlier.clone());
            self.mark_dirty(&earlier);
        }
        self.cache_view = None;
    }

    /// After files joined the project ([`Server::add_to_project`]): marks
    /// dirty the modules whose imports may resolve differently now
    /// ([`ImportGraph::changed_by_added_files`]: a name they import stands
    /// for a new module, for themselves, or for another module than
    /// before) and the modules that import those, directly or not: the
    /// files whose analysis the new modules can change, as a rebuild would
    /// have found them. Their findings are not taken from the cache.
    fn refresh_importers(&mut self) {
        let Some(before) = self.before_added.take() else { return };
        let changed = self.imports.changed_by_added_files(&before, &self.project);
        let dependants = self.imports.dependants_of(&self.project, &changed);
        for module in changed.into_iter().chain(dependants) {
            let path = self.project.modules().path(module).to_path_buf();
            self.not_from_cache.insert(path.clone());
            self.mark_dirty(&path);
        }
    }

    /// Analyses the next batch of dirty files (every dirty open document,
    /// else [`BATCH_PER_THREAD`] files per worker thread) and publishes
    /// their diagnostics; files whose analysis a message cancelled stay
    /// dirty.
    fn analyse_next_batch(&mut self) {
        for path in std::mem::take(&mut self.stale) {
            if let Some(document) = self.documents.get(&path) {
                self.project = self.project.edited(&path, Some(Arc::from(document.text.as_str())));
                self.forget_in_cache(&path);
            }
        }
        let open_waits = |server: &Server| server.dirty.iter().any(|p| server.documents.contains_key(p));
        if self.before_added.is_some() && !open_waits(self) {
            self.refresh_importers();
        }
        if self.dirty.is_empty() {
            return;
        }
        let open: Vec<PathBuf> = self.dirty.iter().filter(|p| self.documents.contains_key(*p)).cloned().collect();
        let background = open.is_empty();
        if background && self.cache_view.is_none() {
            self.make_cache_view();
        }
        let batch: Vec<PathBuf> = if background {
            let n = (BATCH_PER_THREAD * rayon::current_num_threads()).min(self.dirty.len());
            self.dirty.drain(..n).collect()
        } else {
            self.dirty.retain(|p| !open.contains(p));
            open
        };
        for path in &batch {
            self.dirty_set.remove(path);
        }
        let uris: Vec<&str> = batch.iter().filter_map(|p| self.documents.get(p)).map(|d| d.uri.as_str()).collect();
        let interrupts = |incoming: &Incoming| background || edits_one_of(incoming, &uris);
        let cache = if background { self.cache_view.as_ref() } else { None };
        let uncached = &self.not_from_cache;
        let ran = batch::run(&batch, &self.project, &self.config, cache, uncached, &self.incoming, interrupts);
        for incoming in ran.arrived {
            if let Some(message) = self.take(incoming) {
                self.pending.push_back(message);
            }
        }
        for ((path, outcome), reached) in batch.iter().zip(ran.outcomes).zip(ran.reached) {
            match outcome {
                Ok(Err(SyntaxError::Cancelled { .. })) => self.mark_dirty(path),
                Ok(report) => {
                    if let Some(module) = self.project.module_of(path) {
                        self.imports.reached_as_attributes(module, reached);
                    }
                    self.not_from_cache.remove(path);
                    self.publish_report(path, report);
                    self.refresh_dependants(path);
                }
                Err(message) => {
                    self.log(MessageType::ERROR, message);
                    let version = self.documents.get(path).map(|d| d.version);
                    self.publish(path, Vec::new(), version);
                }
            }
        }
    }

    fn publish_report(&mut self, path: &Path, report: Result<FileReport, SyntaxError>) {
        let report = match report {
            Ok(report) => report,
            Err(error) => {
                self.log(MessageType::WARNING, format!("quarry: {error}"));
                let version = self.documents.get(path).map(|d| d.version);
                return self.publish(path, Vec::new(), version);
            }
        };
        let mut policy = Policy {
            per_file_ignores: &self.config.per_file_ignores,
            honour_comments: true,
            baseline: None,
            writer: None,
            queries: &self.config.queries,
        };
        let mut triaged = policy.triage(report);
        let Some(uri) = uri::from_path(path) else { return };
        let (diagnostics, version) = match self.documents.get(path) {
            Some(document) => (diagnostics::of_file(&uri, &triaged, &document.text), Some(document.version)),
            None => {
                let text = Text::new(std::mem::take(&mut triaged.report.text), self.encoding);
                (diagnostics::of_file(&uri, &triaged, &text), None)
            }
        };
        self.publish(path, diagnostics, version);
    }

    /// After `path` was analysed: when what other modules see of it changed
    /// since its edit, the files that import it (directly or through other
    /// modules, or that read it as an attribute of a package when they
    /// were last analysed) are marked dirty.
    fn refresh_dependants(&mut self, path: &Path) {
        let Some(before) = self.summary_before.remove(path) else { return };
        let Some(module) = self.project.module_of(path) else { return };
        let after = self.project.summary(module).map(|s| s.stable_text());
        if after.as_deref() == Some(before.as_str()) {
            return;
        }
        self.imports.forget(module);
        for dependant in self.imports.dependants(&self.project, module) {
            let file = self.project.modules().path(dependant).to_path_buf();
            self.mark_dirty(&file);
        }
    }

    fn publish(&mut self, path: &Path, diagnostics: Vec<Diagnostic>, version: Option<i32>) {
        let Some(uri) = self.documents.get(path).map(|d| d.uri.clone()).or_else(|| uri::from_path(path)) else {
            return;
        };
        let params = PublishDiagnosticsParams { uri, diagnostics: diagnostics.clone(), version };
        self.notify::<notification::PublishDiagnostics>(params);
        if let Some(document) = self.documents.get_mut(path) {
            document.current = true;
        }
        self.published.insert(path.to_path_buf(), diagnostics);
    }

    fn hover(&self, uri: &Uri, position: lsp_types::Position) -> Option<lsp_types::Hover> {
        let path = uri::to_path(uri)?;
        hover::at(self.published.get(&path)?, position)
    }

    fn code_actions(&self, params: &CodeActionParams) -> Vec<CodeActionOrCommand> {
        let uri = &params.text_document.uri;
        let Some(path) = uri::to_path(uri) else { return Vec::new() };
        let (Some(document), Some(published)) = (self.documents.get(&path), self.published.get(&path)) else {
            return Vec::new();
        };
        let range = params.range;
        let wanted = params.context.only.as_ref().is_none_or(|kinds| {
            kinds
                .iter()
                .any(|k| k == &CodeActionKind::QUICKFIX || CodeActionKind::QUICKFIX.as_str().starts_with(k.as_str()))
        });
        if !wanted {
            return Vec::new();
        }
        let touching: Vec<Diagnostic> =
            published.iter().filter(|d| d.range.start <= range.end && range.start <= d.range.end).cloned().collect();
        actions::for_diagnostics(uri, &document.text, &touching)
            .into_iter()
            .map(CodeActionOrCommand::CodeAction)
            .collect()
    }

    fn register_watchers(&mut self) {
        let watchers = ["**/*.py", "**/pyproject.toml", "**/quarry.toml", "**/.quarry.toml"]
            .into_iter()
            .map(|glob| FileSystemWatcher { glob_pattern: GlobPattern::String(glob.into()), kind: None })
            .collect();
        let options = DidChangeWatchedFilesRegistrationOptions { watchers };
        let registration = Registration {
            id: "quarry-watched-files".into(),
            method: notification::DidChangeWatchedFiles::METHOD.into(),
            register_options: serde_json::to_value(options).ok(),
        };
        let params = RegistrationParams { registrations: vec![registration] };
        let request = Request::new(
            RequestId::from("quarry-register-watchers".to_string()),
            request::RegisterCapability::METHOD.into(),
            params,
        );
        let _ = self.out.send(request.into());
    }

    fn log(&self, typ: MessageType, message: String) {
        self.notify::<notification::LogMessage>(LogMessageParams { typ, message });
    }

    fn notify<N: notification::Notification>(&self, params: N::Params) {
        let _ = self.out.send(Notification::new(N::METHOD.into(), params).into());
    }
}

/// Whether `incoming` is an edit (a change or a close) or the end (`exit`)
/// of one of the documents `uris`.
fn edits_one_of(incoming: &Incoming, uris: &[&str]) -> bool {
    let Incoming::Message(Message::Notification(n)) = incoming else { return false };
    match n.method.as_str() {
        notification::Exit::METHOD => true,
        notification::DidChangeTextDocument::METHOD | notification::DidCloseTextDocument::METHOD => {
            n.params.pointer("/textDocument/uri").and_then(|u| u.as_str()).is_some_and(|u| uris.contains(&u))
        }
        _ => false,
    }
}

/// Decodes a request's parameters.
fn decode<P: serde::de::DeserializeOwned>(params: serde_json::Value) -> Result<P, (ErrorCode, String)> {
    serde_json::from_value(params).map_err(|e| (ErrorCode::InvalidParams, format!("invalid parameters: {e}")))
}

fn send_error(out: &Sender<Outgoing>, id: RequestId, code: ErrorCode, message: String) {
    let _ = out.send(Response::new_err(id, code as i32, message).into());
}

/// The workspace folder: the first workspace folder, else the root URI.
#[allow(deprecated)]
fn root_folder(params: &InitializeParams) -> Option<PathBuf> {
    let first = params.workspace_folders.as_ref().and_then(|f| f.first()).map(|f| &f.uri);
    first.or(params.root_uri.as_ref()).and_then(uri::to_path)
}

fn capabilities(encoding: Encoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(encoding.kind()),
        text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::INCREMENTAL),
            save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions { include_text: Some(false) })),
            ..Default::default()
        })),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..Default::default()
        })),
        ..Default::default()
    }
}
