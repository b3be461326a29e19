"""Running a computation: the native compute (or persist) of expression handles with the
settings of ``tg.config``, a progress bar, and a trace when a report is recording. Below the
array type, so ``Array.compute`` and ``tegula.compute`` both call it."""

from . import _dashboard, _live, _progress, _report, _tegula, config


def executor_name(scheduler=None, placement=None):
    """The registry's name for `scheduler` (unset: ``tg.config``'s), a Dask client's included."""
    from ._dask import executor_name as named  # distributed is imported only when asked for

    scheduler = config.get("scheduler") if scheduler is None else scheduler
    return named(scheduler, config.get("placement") if placement is None else placement)


def run_compute(handles, scheduler, num_workers, fuse, progress=None, placement=None, persist=False):
    """The native compute (or persist) with the settings of ``tg.config``, a progress bar as
    ``progress`` and the settings say, traced when an execution report (``tg.report``) is
    recording, and fed to the live view when one serves (``tg.dashboard``)."""
    settings = config.explicit()
    scheduler = executor_name(scheduler, placement)
    num_workers = config.get("num_workers") if num_workers is None else config.checked_num_workers(num_workers)
    bar = _progress.resolve(progress)
    recorder = _report.active()
    live = _dashboard.feed(scheduler, num_workers, config.get("memory"))
    if "gpu" in _tegula.device_names():  # opened: its budget is this computation's setting
        _tegula.set_gpu_memory(config.get("device_memory"))
    run = _tegula.persist if persist else _tegula.compute
    interval = _progress.INTERVAL if bar is not None or live is None else _live.INTERVAL
    try:
        computed, info = run(
            handles, scheduler, num_workers, fuse, settings.get("memory"), settings.get("spill_dir"),
            progress=bar, interval=interval, trace=recorder is not None, live=live,
        )
    except BaseException as e:
        if live is not None:
            live.finish(error=e)
        raise
    finally:
        if bar is not None:  # also ends the line of a failed or interrupted computation
            bar.close()
    trace = info.pop("trace", None)
    if live is not None:
        live.finish(info)
    if recorder is not None:
        recorder.add(trace, info, scheduler, num_workers)
    return computed, info
