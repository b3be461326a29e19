//! A worker process's side of the process pool: it says whether it can read its caller's
//! memory (`caller_memory.rs`), then reads requests from its input (the files of the blocks
//! it is given, its memory budget, then the fragment's bytes), runs each through
//! `run_fragment` and answers with the files of its outputs or the error it met, until its
//! input closes. Messages are frames, each preceded by its length (8 bytes, little endian):
//! postcard values, but for a fragment's bytes, which follow their request as a frame of
//! their own (neither copied into the request nor encoded byte by byte). Blocks travel as
//! files in a directory both processes see (a memory file system where there is one), but
//! for small ones, which travel inside the messages (`inline.rs`).

use crate::caller_memory::{CallerRegion, Probe};
use crate::fragment::{run_fragment, Fragment};
use crate::inline::InlineBlock;
use crate::spill::Spilled;
use serde::{Deserialize, Serialize};
use std::io::{ErrorKind, Read, Write};
use std::path::PathBuf;
use std::sync::OnceLock;
use tegula_core::{internal_err, Result, Spec, TegulaError};

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Request {
    pub inputs: Vec<Sent>,
    /// Output `k` goes into the caller's memory at `places[k]` where that is given, else
    /// into the answer where it takes at most `inline_bytes`, else to `{out_prefix}-{k}.raw`.
    pub out_prefix: String,
    pub places: Vec<Option<CallerRegion>>,
    pub inline_bytes: usize,
    pub memory: usize,
    pub spill_dir: PathBuf,
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Done {
    /// Each output.
    pub outputs: Vec<Sent>,
    /// The worker's measured peak of chunks held and bytes spilled, for the report.
    pub peak_bytes: usize,
    pub spilled_bytes: usize,
}

/// A block passed between the caller and a worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum Sent {
    /// In a file both processes see.
    File(Spilled),
    /// In the message itself.
    Inline(InlineBlock),
    /// Written into the caller's memory, where the caller asked for it (an output only).
    InPlace,
}

impl Sent {
    fn read(&self) -> Result<tegula_kernels::Chunk> {
        match self {
            Sent::File(file) => file.read(),
            Sent::Inline(block) => block.to_chunk(),
            Sent::InPlace => Err(internal_err!("a worker was given a block written into its caller's memory")),
        }
    }
}

pub(crate) type Response = std::result::Result<Done, TegulaError>;

/// Turns the error a caller's function raised in this process into one that carries the
/// exception itself (`TegulaError::Remote`); registered by the front end that keeps them.
pub type CallbackEncoder = fn(&TegulaError) -> Option<TegulaError>;

static CALLBACK_ENCODER: OnceLock<CallbackEncoder> = OnceLock::new();

/// Registers how this process sends its functions' exceptions (the first registration holds).
pub fn set_callback_encoder(encoder: CallbackEncoder) {
    let _ = CALLBACK_ENCODER.set(encoder);
}

/// Says whether it reads its caller's memory (one frame: a postcard `bool`), then serves
/// requests from `input` until it closes.
pub fn serve(input: &mut (impl Read + Send), output: &mut (impl Write + Send)) -> Result<()> {
    // On the thread of the one-thread pool fragments run on (`run_fragment`), which then runs
    // each fragment's tasks here instead of handing them to that thread and waiting: two
    // switches between threads per fragment, on cores the other workers keep busy.
    crate::pool::pool(1)?.install(|| serve_here(input, output))
}

fn serve_here(input: &mut impl Read, output: &mut impl Write) -> Result<()> {
    let reads_caller = Probe::from_environment().is_some_and(|probe| probe.readable());
    let hello = postcard::to_stdvec(&reads_caller).map_err(|e| internal_err!("encoding a worker's greeting: {e}"))?;
    write_frame(output, &hello)?;
    while let Some(bytes) = read_frame(input)? {
        let fragment = read_frame(input)?.ok_or_else(|| internal_err!("a worker's input closed between a request and its fragment"))?;
        let response: Response = postcard::from_bytes::<Request>(&bytes)
            .map_err(|e| internal_err!("a worker got a request it cannot read: {e}"))
            .and_then(|request| handle(&request, &fragment))
            .map_err(sendable);
        let bytes = postcard::to_stdvec(&response).map_err(|e| internal_err!("encoding a worker's answer: {e}"))?;
        write_frame(output, &bytes)?;
    }
    Ok(())
}

fn handle(request: &Request, fragment: &[u8]) -> Result<Done> {
    let graph = Fragment::from_bytes(fragment)?.decode()?;
    let given = request.inputs.iter().map(Sent::read).collect::<Result<Vec<_>>>()?;
    let spec = Spec { memory: request.memory, spill_dir: request.spill_dir.clone(), ..Spec::default() };
    let (blocks, report) = run_fragment(&graph, &given, 1, &spec, None)?;
    let outputs = blocks
        .iter()
        .enumerate()
        .map(|(k, block)| match (request.places.get(k).and_then(Option::as_ref), InlineBlock::of(block, request.inline_bytes)) {
            (Some(place), _) => place.write(block).map(|()| Sent::InPlace),
            (None, Some(inline)) => Ok(Sent::Inline(inline)),
            (None, None) => Spilled::write(PathBuf::from(format!("{}-{k}.raw", request.out_prefix)), block).map(Sent::File),
        })
        .collect::<Result<_>>()?;
    Ok(Done { outputs, peak_bytes: report.peak_bytes, spilled_bytes: report.spilled_bytes })
}

fn sendable(error: TegulaError) -> TegulaError {
    match (&error, CALLBACK_ENCODER.get()) {
        (TegulaError::Callback { .. }, Some(encode)) => encode(&error).unwrap_or(error),
        _ => error,
    }
}

/// The next message, or `None` when the input closed between messages.
pub(crate) fn read_frame(input: &mut impl Read) -> Result<Option<Vec<u8>>> {
    let mut len = [0u8; 8];
    match input.read_exact(&mut len) {
        Err(e) if e.kind() == ErrorKind::UnexpectedEof => return Ok(None),
        other => other.map_err(pipe_err)?,
    }
    let len = usize::try_from(u64::from_le_bytes(len)).map_err(|_| internal_err!("a message too long for memory"))?;
    let mut bytes = vec![0; len];
    input.read_exact(&mut bytes).map_err(pipe_err)?;
    Ok(Some(bytes))
}

pub(crate) fn write_frame(output: &mut impl Write, bytes: &[u8]) -> Result<()> {
    write_frames(output, &[bytes])
}

/// Several messages, sent together.
pub(crate) fn write_frames(output: &mut impl Write, frames: &[&[u8]]) -> Result<()> {
    for bytes in frames {
        output.write_all(&(bytes.len() as u64).to_le_bytes()).map_err(pipe_err)?;
        output.write_all(bytes).map_err(pipe_err)?;
    }
    output.flush().map_err(pipe_err)
}

fn pipe_err(e: std::io::Error) -> TegulaError {
    TegulaError::Io(format!("talking to a worker process: {e}"))
}
