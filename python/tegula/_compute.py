"""Running a computation: the native compute (or persist) of expression handles with the
settings of ``tg.config``, a progress bar, and a trace when a report is recording. Below the
array type, so ``Array.compute`` and ``tegula.compute`` both call it."""

from . import _progress, _report, _tegula, config


def executor_name(scheduler=None, placement=None):
    """The registry's name for `scheduler` (unset: ``tg.config``'s), a Dask client's included."""
    from ._dask import executor_name as named  # distributed is imported only when asked for

    scheduler = config.get("scheduler") if scheduler is None else scheduler
    return named(scheduler, config.get("placement") if placement is None else placement)


def run_compute(handles, scheduler, num_workers, fuse, progress=None, placement=None, persist=False):
    """The native compute (or persist) with the settings of ``tg.config``, a progress bar as
    ``progress`` and the settings say, and traced when an execution report (``tg.report``) is
    recording."""
    settings = config.explicit()
    scheduler = executor_name(scheduler, placement)
    num_workers = config.get("num_workers") if num_workers is None else config.checked_num_workers(num_workers)
    bar = _progress.resolve(progress)
    recorder = _report.active()
    run = _tegula.persist if persist else _tegula.compute
    try:
        computed, info = run(
            handles, scheduler, num_workers, fuse, settings.get("memory"), settings.get("spill_dir"),
            progress=bar, interval=_progress.INTERVAL, trace=recorder is not None,
        )
    finally:
        if bar is not None:  # also ends the line of a failed or interrupted computation
            bar.close()
    trace = info.pop("trace", None)
    if recorder is not None:
        recorder.add(trace, info, scheduler, num_workers)
    return computed, info
