# The sealed dice server, `rollcall serve`, in a container.
#
#   docker build -t rollcall .
#   docker run -d -p 7878:7878 -v rollcall-store:/var/lib/rollcall rollcall
#
# The store is a volume at /var/lib/rollcall (sled); for a league, point
# the server at PostgreSQL instead: -e ROLLCALL_STORE=postgres://… (run
# `rollcall store migrate` against it once). The server listens on every
# address inside the container; put a TLS proxy in front of it before
# opening it to the internet, since tokens travel in the clear otherwise.

# Build: the release binary, from the locked dependencies.
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p rollcall-cli \
    && install -m 0755 target/release/rollcall /usr/local/bin/rollcall

# Run: a slim system of the same Debian release (the binary links its glibc),
# curl for the health check, and an unprivileged user that owns the store.
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends curl ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /var/lib/rollcall --shell /usr/sbin/nologin rollcall \
    && mkdir -p /var/lib/rollcall \
    && chown rollcall:rollcall /var/lib/rollcall
COPY --from=build /usr/local/bin/rollcall /usr/local/bin/rollcall
USER rollcall
VOLUME ["/var/lib/rollcall"]
ENV ROLLCALL_DB=/var/lib/rollcall
EXPOSE 7878
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD curl -fsS http://127.0.0.1:7878/openapi.json > /dev/null || exit 1
# SIGTERM (docker stop) stops the server cleanly: requests in flight finish.
ENTRYPOINT ["rollcall"]
CMD ["serve", "--addr", "0.0.0.0:7878"]
