"""The run on a worker thread and its pacing to the screen: session, worker, frame scheduler, Live."""
