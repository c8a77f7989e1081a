# Boardhall server: WebSocket protocol v1 + HTTP (/healthz, /metrics, /games/ID) on port 8765,
# games kept in a SQLite file on the /data volume. Another port: set BOARDHALL_PORT, which the
# server and the healthcheck both read (docker run -e BOARDHALL_PORT=9000 -p 9000:9000 ...).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    BOARDHALL_IN_CONTAINER=1 \
    BOARDHALL_PORT=8765

WORKDIR /app
COPY pyproject.toml README.md ./
COPY protocol ./protocol
COPY engines ./engines
COPY server ./server
COPY client ./client
RUN pip install ".[speed]" \
    && useradd --system --uid 10001 --home /data --shell /usr/sbin/nologin boardhall \
    && mkdir -p /data && chown boardhall /data

USER boardhall
VOLUME ["/data"]
EXPOSE ${BOARDHALL_PORT}

# a clean stop (SIGTERM) takes up to about 20 s: give it 30 (docker run --stop-timeout 30;
# docker-compose.yml sets stop_grace_period)
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-m", "server.healthcheck"]

ENTRYPOINT ["boardhall-server"]
# no --port: the server listens on BOARDHALL_PORT, the port the healthcheck asks
CMD ["--host", "0.0.0.0", "--db", "/data/boardhall.db"]
