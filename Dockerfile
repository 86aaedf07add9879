# tradebench in a small image: one static binary (pure Go, SQLite included) on distroless.
#   docker build -t tradebench:0.1.0 .
#   docker run --rm tradebench:0.1.0 agent --nats nats://nats:4222
# The same image runs every role: agent, the controller (drive/run), serve, load.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/tradebench ./cmd/tradebench

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/tradebench /usr/local/bin/tradebench
USER nonroot:nonroot
WORKDIR /home/nonroot
ENTRYPOINT ["/usr/local/bin/tradebench"]
CMD ["--help"]
