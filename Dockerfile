FROM python:3.11-slim
WORKDIR /srv/fw
# WeasyPrint's libraries, for printing to PDF (engine/printing/pdf.py)
RUN apt-get update && apt-get install -y --no-install-recommends libpango-1.0-0 libpangoft2-1.0-0 \
    libharfbuzz-subset0 fonts-dejavu-core && rm -rf /var/lib/apt/lists/*
COPY . .
RUN pip install --no-cache-dir -e .
EXPOSE 8000
CMD ["fw", "serve", "--host", "0.0.0.0", "--port", "8000"]
