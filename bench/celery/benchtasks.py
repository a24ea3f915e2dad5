"""The Celery app and the no-op tasks of the side-by-side benchmark (see run.sh).

Configured from the environment so that the driver (bench.py) and the worker
processes it starts agree: CELERY_BENCH_BROKER (AMQP URL with the vhost
baton-celery) and CELERY_BENCH_BACKEND (Redis URL).
"""
import os
import time

from celery import Celery
from kombu import Queue

QUEUE = "baton-celery-bench"

app = Celery("benchtasks")
app.conf.update(
    broker_url=os.environ.get("CELERY_BENCH_BROKER", "amqp://guest:guest@127.0.0.1:5672/baton-celery"),
    result_backend=os.environ.get("CELERY_BENCH_BACKEND", "redis://127.0.0.1:6379/0"),
    # Durability, as close to Baton's contract as Celery goes: a task message is
    # acked only after the task has run and its result is stored (acks late);
    # every publish waits for the broker's confirm; messages are persistent and
    # the queue durable.
    task_acks_late=True,
    # A task that raised is acked (its failure is stored as its result), as Baton
    # records a failed attempt; a worker that dies mid-task leaves the message
    # unacked, so the broker redelivers it.
    task_acks_on_failure_or_timeout=True,
    task_reject_on_worker_lost=True,
    # Publisher confirms (not Celery's default): CELERY_BENCH_CONFIRMS=0 turns them off.
    broker_transport_options={"confirm_publish": os.environ.get("CELERY_BENCH_CONFIRMS", "1") != "0"},
    task_default_delivery_mode="persistent",
    task_queues=[Queue(QUEUE, durable=True)],
    task_default_queue=QUEUE,
    # Prefetch count = slots x 1: no message waits in a busy worker beyond one per slot.
    worker_prefetch_multiplier=1,
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    # No monitoring traffic: only the work itself is measured.
    worker_send_task_events=False,
    task_send_sent_event=False,
    task_track_started=False,
    result_expires=3600,
    broker_connection_retry_on_startup=True,
    worker_hijack_root_logger=False,
)


@app.task(name="bench.noop")
def noop(i):
    """A fan-out member: returns a small output, as Baton's baton.echo does."""
    return {"i": i}


@app.task(name="bench.collect")
def collect(results):
    """The chord callback: receives every member's output (Baton's fan-in join
    injects every output the same way) and returns how many it got."""
    return {"count": len(results), "sum": sum(r["i"] for r in results), "at": time.time()}


@app.task(name="bench.hop")
def hop(previous, k):
    """A chain link: records when it started and when it returned (wall clock,
    the same machine for every process). The driver measures a hop as this
    task's start minus the previous task's end, like Baton's finished -> next
    started."""
    started = time.time()
    prev = None if previous is None else previous["k"]
    return {"k": k, "previous": prev, "started": started, "finished": time.time()}
